// Chinese templates, fourth part (error_zh.hpp explains the form): vision towers (--vision, --tower,
// vision_config), their positions and sections, and apply's vector lengths under a model.
#include "rope/cli/error_zh.hpp"

namespace rope::cli::detail {

const std::vector<ErrorTemplate>& error_templates_fourth() {
  static const std::vector<ErrorTemplate> templates = {
      {"--vector has {} numbers but {} rotates d = {}",
       "--vector 有 {0} 个数，但 {1} 旋转 d = {2} 个通道"},
      {"--vector has {} numbers but {} has head_dim {} of which d = {} rotate: give {} or {} numbers",
       "--vector 有 {0} 个数，但 {1} 的 head_dim 为 {2}，其中 d = {3} 个通道旋转：请给出 {4} 或 {5} 个数"},
      {"--tower must be text or vision (got '{}')",
       "--tower 必须是 text 或 vision（实际为 '{0}'）"},
      {"--vision builds a 2-D vision RoPE from --dim and --base; for the vision tower of --model or --config give --tower vision",
       "--vision 由 --dim 与 --base 构成二维视觉 RoPE；要取 --model 或 --config 的视觉塔，请用 --tower vision"},
      {"--tower needs --model or --config (a vision-language model's config)",
       "--tower 需要 --model 或 --config（视觉语言模型的配置）"},
      {"--tower text: {} is the config of a vision tower (model_type {}), it has no language model",
       "--tower text：{0} 是视觉塔的配置（model_type {1}），没有语言模型"},
      {"{}: a vision tower's 2-D RoPE ({}) has no context scaling, partial rotation, layer types or float32 path in rope",
       "{0}：rope 中视觉塔的二维 RoPE（{1}）没有上下文缩放、部分旋转、层类型或 float32 计算"},
      {"--tower vision: {} has no vision_config (a vision-language model's config has one)",
       "--tower vision：{0} 没有 vision_config（视觉语言模型的配置才有）"},
      {"--tower vision: {m}",
       "--tower vision：{0}"},
      {"{}: vision_config has model_type '{}' (in a '{}' config), whose RoPE rope does not know (known: pixtral, llama4_vision_model, qwen2_vl, qwen2_5_vl, qwen3_vl)",
       "{0}：vision_config 的 model_type 为 '{1}'（在 '{2}' 配置中），rope 不认识它的 RoPE（已知：pixtral、llama4_vision_model、qwen2_vl、qwen2_5_vl、qwen3_vl）"},
      {"{}: {}: a vision tower needs head_dim, or hidden_size (embed_dim) and num_attention_heads (num_heads)",
       "{0}：{1}：视觉塔需要 head_dim，或 hidden_size（embed_dim）与 num_attention_heads（num_heads）"},
      {"{}: {}: {} is not a multiple of 4 between 4 and {} (a 2-D vision RoPE gives each axis half of the head's pairs)",
       "{0}：{1}：{2} 不是 4 到 {3} 之间 4 的倍数（二维视觉 RoPE 让每个轴各占头部一半的通道对）"},
      {"{}: {}: {} is not divisible by {} = {}",
       "{0}：{1}：{2} 不能被 {3} = {4} 整除"},
      {"the position {} has {} components but this vision tower reads 2 axes (h,w: the patch's row and column): give 2 numbers, or one for the patch (m, m)",
       "位置 {0} 有 {1} 个分量，但该视觉塔读取 2 个轴（h,w：块的行与列）：请给出 2 个数，或用一个数表示块 (m, m)"},
      {"--sections: a vision tower's map is fixed by its implementation (--vision, --tower vision); it reads no sections",
       "--sections：视觉塔的对应关系由其实现决定（--vision、--tower vision），不读取分段"},
      {"vision RoPE must be 'qwen2-vl', 'llama.cpp', 'pixtral', 'llama4' or 'axial' (got '{}')",
       "视觉 RoPE 必须是 'qwen2-vl'、'llama.cpp'、'pixtral'、'llama4' 或 'axial'（实际为 '{0}'）"},
      {"a vision tower's 2-D RoPE turns each patch by its (row, column): give --axis-positions FILE with a row ROW,COL per sequence index, or check the tower's rotation with rope apply --position ROW,COL",
       "视觉塔的二维 RoPE 按每个块的(行,列)旋转：请用 --axis-positions FILE 为每个序列下标给出一行 ROW,COL，或用 rope apply --position ROW,COL 检查视觉塔的旋转"},
      {"--tokens-per-second: {} ({}) has no time scaling: its video time index is a timestamp text before each frame",
       "--tokens-per-second：{0}（{1}）没有时间缩放：它的视频时间由每帧之前的时间戳文本给出"},
      {"--tokens-per-second: {} ({}) has no time scaling: its video time index is the frame index",
       "--tokens-per-second：{0}（{1}）没有时间缩放：它的视频时间编号就是帧序号"},
      {"--video: {} ({}) splits a video into its frames, each its own 1xHxW block after a timestamp text (get_rope_index): give each frame as --image 1xHxW and its timestamp's tokens as --text before it",
       "--video：{0}（{1}）把视频拆成各帧，每帧在一段时间戳文本之后自成一个 1xHxW 块（get_rope_index）：请把每帧写成 --image 1xHxW，并在它之前用 --text 给出时间戳的词元数"},
      {"{} (model_type '{}') has no M-RoPE position ids rope knows: rope positions follows get_rope_index of Qwen2-VL, Qwen2.5-VL and Qwen3-VL (model_type qwen2_vl, qwen2_5_vl, qwen3_vl)",
       "{0}（model_type '{1}'）没有 rope 认识的 M-RoPE 位置编号：rope positions 依照 Qwen2-VL、Qwen2.5-VL 和 Qwen3-VL 的 get_rope_index（model_type qwen2_vl、qwen2_5_vl、qwen3_vl）"},
      {"the positions {} and {} have different numbers of components",
       "位置 {0} 与 {1} 的分量个数不同"},
      {"give --positions or --axis-positions, not both",
       "--positions 与 --axis-positions 只能给一个"},
      {"{} line {}: more than {} positions",
       "{0} 第 {1} 行：位置多于 {2} 个"},
      {"{} line {}: {} components: a position has 1 number, or one per axis (at most {}: t,h,w,e)",
       "{0} 第 {1} 行：{2} 个分量：一个位置是 1 个数，或每轴一个（至多 {3} 个：t,h,w,e）"},
      {"{} line {}: {} cells, fewer than the header's",
       "{0} 第 {1} 行：{2} 个单元格，少于表头的列数"},
      {"{} line {}: {} components where the first row has {}",
       "{0} 第 {1} 行：{2} 个分量，而第一行有 {3} 个"},
      {"{}: no positions",
       "{0}：没有位置"},
      {"--axis-positions: {} is outside [-2^24, 2^24]",
       "--axis-positions：{0} 超出 [-2^24, 2^24]"},
      {"--relative M N: 2·(|m| + |n|) = {} is beyond what float64 resolves at d = {}: it must be below {}, where the "
       "tolerance κ·ε·(d + 2(|m| + |n|)) of (M13) reaches 1",
       "--relative M N：2·(|m| + |n|) = {0} 超出了 float64 在 d = {1} 时的分辨能力：它必须小于 {2}，"
       "在那里 (M13) 的容差 κ·ε·(d + 2(|m| + |n|)) 达到 1"},
      {"{} is a GGUF language model (architecture {}): the rules of its position ids (spatial_merge_size, and "
       "tokens_per_second for Qwen2.5-VL) are in the vision model's mmproj file, not here; give --model qwen2-vl-7b, "
       "qwen2.5-vl-7b or qwen3-vl-8b, the model's config.json, or the rules (--merge-size, --tokens-per-second) "
       "without --config",
       "{0} 是 GGUF 语言模型（架构 {1}）：它的位置编号规则（spatial_merge_size，以及 Qwen2.5-VL 的 "
       "tokens_per_second）在视觉模型的 mmproj 文件里，不在这里；请给出 --model qwen2-vl-7b、qwen2.5-vl-7b 或 "
       "qwen3-vl-8b、模型的 config.json，或者不带 --config 直接给出规则（--merge-size、--tokens-per-second）"},
      {"--xpos applies to plain RoPE: leave out --model, --config and --scaling",
       "--xpos 只适用于普通 RoPE：请去掉 --model、--config 和 --scaling"},
      {"--xpos: {} distances × d/2 = {} pairs is {} terms of (X5), over the limit of {}: use fewer --points or a smaller --dim",
       "--xpos：{0} 个距离 × d/2 = {1} 对，共 {2} 项 (X5)，超过上限 {3}：请减少 --points 或减小 --dim"},
      {"{} line {}: the header names the column {} {} times",
       "{0} 第 {1} 行：表头把列 {2} 写了 {3} 次"},
      {"{} line {}: a header needs the columns t, h, w (as rope positions --csv writes them), t, h, w, e (llama.cpp) or h, w "
       "(a vision tower)",
       "{0} 第 {1} 行：表头需要 t、h、w 列（与 rope positions --csv 写出的一样）、t、h、w、e 列（llama.cpp）或 h、w 列（视觉塔）"},
      {"{} line {}: {} cells, more than the header's {}",
       "{0} 第 {1} 行：{2} 个单元格，多于表头的 {3} 列"},
      {"--position component {} of {} = {} is beyond what {} resolves at d = {}: |position| must be below {}, where the "
       "tolerance κ·ε·(d + |m|) of ({}) reaches {} and m·θ has no correct digit left",
       "--position {1} 的第 {0} 个分量 = {2} 超出了 {3} 在 d = {4} 时的分辨能力：|position| 必须小于 {5}，"
       "在那里 ({6}) 的容差 κ·ε·(d + |m|) 达到 {7}，m·θ 已没有一位正确的数字"},
  };
  return templates;
}

}  // namespace rope::cli::detail
