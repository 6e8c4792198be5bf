// rope encodings: the comparison table of position encodings that explainers print (blog posts on RoPE often have one:
// explicit relative position, long-range decay, parameters, extrapolation) for absolute sinusoidal, learned
// absolute, T5 bias, ALiBi and RoPE, each claim next to the number rope computes for it, or its source.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <sstream>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/printing.hpp"
#include "rope/analysis/alibi.hpp"
#include "rope/analysis/attention.hpp"
#include "rope/io/csv.hpp"
#include "rope/analysis/decay.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/random.hpp"
#include "rope/analysis/sinusoidal.hpp"

namespace rope::cli {

/// The learned table of the shift test has tokens + shift rows of d numbers: at most 14096 × 1024.
inline constexpr long kMaxEncodingsShift = 10'000;
inline constexpr long kMaxContext = 10'000'000;
/// Random pairs behind the "mean ± sd" of RoPE's score at each distance (M15).
inline constexpr long kDecaySamples = 1000;

struct EncodingsOptions {
  int tokens = 16;
  int dim = 64;
  int heads = 8;
  long context = 512;
  long shift = 100;
  std::uint64_t seed = kDefaultSeed;
  double base = kDefaultBase;
  Lang lang = Lang::En;
};

namespace {

/// The five encodings in the order of the columns.
constexpr Encoding kColumns[] = {Encoding::Sinusoidal, Encoding::LearnedAbsolute, Encoding::T5Bias, Encoding::Alibi,
                                 Encoding::Rope};

const char* name_of(Encoding e, const Text& t) {
  switch (e) {
    case Encoding::Sinusoidal: return t("sinusoidal", "正弦");
    case Encoding::LearnedAbsolute: return t("learned", "可学习");
    case Encoding::T5Bias: return t("T5 bias", "T5 偏置");
    case Encoding::Alibi: return "ALiBi";
    case Encoding::Rope: return "RoPE";
    default: return "none";
  }
}

std::string sci(double x) { return x == 0.0 ? std::string("0") : fmt::format("{:.2e}", x); }

/// A count as an integer while it is exact in a double, else with 4 significant digits.
std::string count(double x) { return x < 9e15 ? fmt::format("{:.0f}", x) : fmt::format("{:.4g}", x); }

std::string percent(double part, double whole) { return fmt::format("{:.2g}%", 100.0 * part / whole); }

void check_options(const EncodingsOptions& opt) {
  if (opt.tokens < 1 || opt.tokens > kMaxAttentionTokens) {
    throw InvalidArgument(fmt::format("--tokens must be between 1 and {} (got {})", kMaxAttentionTokens, opt.tokens));
  }
  check_dimension(opt.dim, kMaxAttentionDim, "--dim");
  check_base(opt.base);
  if (opt.heads < 1 || opt.heads > kMaxAlibiHeads) {
    throw InvalidArgument(fmt::format("--heads must be between 1 and {} (got {})", kMaxAlibiHeads, opt.heads));
  }
  if (opt.context < 1 || opt.context > kMaxContext) {
    throw InvalidArgument(fmt::format("--context must be between 1 and {} (got {})", kMaxContext, opt.context));
  }
  if (opt.shift < 0 || opt.shift > kMaxEncodingsShift) {
    throw InvalidArgument(fmt::format(
        "--shift must be between 0 and {} (got {}): the learned table has no negative positions", kMaxEncodingsShift,
        opt.shift));
  }
  if (opt.tokens + opt.shift > opt.context) {
    throw InvalidArgument(fmt::format(
        "--tokens + --shift must be <= --context: the learned table has rows 0 … {} only (got {} + {} = {})",
        opt.context - 1, opt.tokens, opt.shift, opt.tokens + opt.shift));
  }
}

}  // namespace

int run_encodings(const EncodingsOptions& opt, std::ostream& out) {
  check_options(opt);
  const Text t(opt.lang);
  const int n = opt.tokens;
  const int d = opt.dim;
  const double d_model = static_cast<double>(opt.heads) * d;
  const double L = static_cast<double>(opt.context);
  const std::vector<double> slopes = alibi_slopes(opt.heads);
  const Eigen::VectorXd theta = frequencies(d, opt.base);
  const T5Buckets t5;

  // The same q_i, k_j for every encoding; the trained tables of learned and T5 replaced by random ones.
  const QueriesKeys qk = random_queries_keys(n, d, opt.seed);
  const Eigen::VectorXd positions = token_positions(n);
  Random rng(opt.seed + 1);
  Eigen::MatrixXd table(n + opt.shift, d);  // the rows 0 … N − 1 + C that the test reads
  for (Eigen::Index r = 0; r < table.rows(); ++r) {
    for (int c = 0; c < d; ++c) table(r, c) = rng.normal();
  }
  Eigen::VectorXd t5_bias(t5.num_buckets);
  for (int b = 0; b < t5.num_buckets; ++b) t5_bias[b] = rng.normal();

  std::vector<ShiftReport> shifts;
  for (Encoding e : kColumns) {
    AttentionSettings s;
    s.encoding = e;
    s.base = opt.base;
    s.alibi_slope = slopes.front();
    s.t5_bias = t5_bias;
    s.learned_table = table;
    shifts.push_back(shift_test(qk.q, qk.k, positions, static_cast<double>(opt.shift), s));
  }
  const ShiftReport& rope_shift = shifts.back();
  const bool rope_ok = rope_shift.check.passed();
  const bool exact_ok = shifts[2].max_abs_change == 0.0 && shifts[3].max_abs_change == 0.0;

  const auto name = [&](Encoding e) { return name_of(e, t); };
  out << t("rope encodings: five position encodings and the claims of the comparison table that explainers print\n"
           "(RoPE, absolute, T5, ALiBi: explicit relative position, long-range decay, cost, extrapolation), each\n"
           "claim next to the number rope computes for it or the source it is cited from\n",
           "rope encodings:五种位置编码,以及讲解文章常列的对比表中的各项结论\n"
           "(RoPE、绝对位置、T5、ALiBi:显式相对位置、远程衰减、代价、外推),\n"
           "每条结论旁边是 rope 为它算出的数字或它所引用的出处\n");
  out << t.format("  one head of N = {} tokens, d = {}, base = {}, seed {}; a model of {} heads (d_model = {}),\n",
                  "  一个头,N = {} 个词元,d = {},base = {},种子 {};模型共 {} 个头(d_model = {}),\n", n, d,
                  format_number(opt.base), opt.seed, opt.heads, count(d_model));
  out << t.format("  trained on L = {} positions. [computed]: by this run; [cited]: published; [not checked]: neither\n\n",
                  "  训练长度 L = {} 个位置。[计算]:本次运行算出;[引用]:已发表的结果;[未核实]:两者都不是\n\n", opt.context);
  out << fmt::format("  {:<11} {}\n", name(Encoding::Sinusoidal),
                     t("adds p_t = (sin tθ_i, cos tθ_i) to x (Vaswani et al. 2017, (M12))",
                       "把 p_t = (sin tθ_i, cos tθ_i) 加到 x 上(Vaswani et al. 2017, (M12))"));
  out << fmt::format("  {:<11} {}\n", name(Encoding::LearnedAbsolute),
                     t("adds row t of a trained L × d_model table E to x (BERT, GPT-2)",
                       "把训练得到的 L × d_model 表 E 的第 t 行加到 x 上(BERT、GPT-2)"));
  out << fmt::format("  {:<11} {}\n", name(Encoding::T5Bias),
                     t("adds a trained r_b to s_ij, b the bucket of j − i (Raffel et al. 2019 §2.1)",
                       "把训练得到的 r_b 加到 s_ij 上,b 是 j − i 所在的桶(Raffel et al. 2019 §2.1)"));
  out << fmt::format("  {:<11} {}\n", "ALiBi",
                     t("adds −m·|i − j| to s_ij, m fixed per head (Press et al. 2021)",
                       "把 −m·|i − j| 加到 s_ij 上,每个头的 m 固定(Press et al. 2021)"));
  out << fmt::format("  {:<11} {}\n", "RoPE",
                     t("rotates q_i by R_i and k_j by R_j (Su et al. 2021, (M8))", "用 R_i 旋转 q_i,用 R_j 旋转 k_j(Su et al. 2021, (M8))"));

  // 1. Explicit relative position.
  out << t("\n1. Explicit relative position: does the score depend on j − i only?  [computed]\n",
           "\n1. 显式相对位置:得分是否只取决于 j − i?  [计算]\n");
  out << t("   the table: RoPE yes, absolute no, T5 yes, ALiBi yes. Checked: right.\n",
           "   表中写:RoPE 是,绝对位置 否,T5 是,ALiBi 是。核对结果:正确。\n");
  out << t.format("   shift test (as rope attention --shift): max |Δ s_ij| when every position moves by C = {}\n",
                  "   平移检验(同 rope attention --shift):所有位置都移动 C = {} 时的 max |Δ s_ij|\n", opt.shift);
  const std::string why[] = {
      t("no: the cross terms q_i·p_j and p_i·k_j depend on i and j separately (M12)",
        "否:交叉项 q_i·p_j 和 p_i·k_j 分别依赖 i 和 j (M12)"),
      t("no: the same cross terms, with a random E[t] ~ N(0, I) in place of a trained table",
        "否:同样的交叉项,这里用随机的 E[t] ~ N(0, I) 代替训练得到的表"),
      t("yes, exactly: the bucket depends on j − i only (random r_b in place of trained ones)",
        "是,精确成立:桶只取决于 j − i(这里用随机的 r_b 代替训练值)"),
      t("yes, exactly: −m·|i − j| depends on i − j only", "是,精确成立:−m·|i − j| 只取决于 i − j"),
      "",
  };
  for (std::size_t c = 0; c < std::size(kColumns); ++c) {
    std::string verdict = why[c];
    if (kColumns[c] == Encoding::Rope) {
      verdict = t.format("{}: rounding, |Δ|/S = {} <= {:g}·ε·(d + M) = {} (M8), (M13)", "{}:舍入误差,|Δ|/S = {} <= {:g}·ε·(d + M) = {} (M8), (M13)",
                         rope_ok ? t("yes", "是") : t("NO", "否"), sci(rope_shift.check.relative_error()), kToleranceSafety,
                         sci(rope_shift.check.tolerance));
    }
    out << fmt::format("     {:<11} {:>9}  {}\n", name(kColumns[c]), sci(shifts[c].max_abs_change), verdict);
  }
  out << t("   T5's buckets (32, max_distance 128, bidirectional; Hugging Face T5Attention._relative_position_bucket):\n",
           "   T5 的桶(32 个,max_distance 128,双向;Hugging Face T5Attention._relative_position_bucket):\n");
  std::vector<long> starts;  // the smallest |j − i| of each bucket of one direction
  for (long dist = 0, last = -1; dist <= 4 * t5.max_distance; ++dist) {
    const int b = t5_relative_position_bucket(-dist, t5);
    if (b != last) starts.push_back(dist), last = b;
  }
  std::string row_dist = fmt::format("     {:<14}", t("|j − i| from", "|j − i| 起点"));
  std::string row_before = fmt::format("     {:<14}", "j <= i");
  std::string row_after = fmt::format("     {:<14}", "j > i");
  for (long dist : starts) {
    row_dist += fmt::format("{:>4}", dist);
    row_before += fmt::format("{:>4}", t5_relative_position_bucket(-dist, t5));
    row_after += dist == 0 ? std::string("   -") : fmt::format("{:>4}", t5_relative_position_bucket(dist, t5));
  }
  out << row_dist << '\n' << row_before << '\n' << row_after << '\n';
  out << t.format("     every |j − i| >= {} shares one bucket per direction\n", "     每个方向上,所有 |j − i| >= {} 共用一个桶\n",
                  starts.back());

  // 2. Long-range decay.
  const double distances[] = {0, 10, 100, 1000};
  const Eigen::VectorXd at = Eigen::Map<const Eigen::VectorXd>(distances, std::size(distances));
  const RandomScores random = random_scores(theta, at, kDecaySamples, opt.seed);
  const Eigen::VectorXd p0 = sinusoidal_encoding(d, 0.0, opt.base);
  out << t("\n2. Long-range decay: does the score fall with the distance |j − i|?  [computed]\n",
           "\n2. 远程衰减:得分是否随距离 |j − i| 下降?  [计算]\n");
  out << t("   the table: RoPE yes (adaptive), absolute no, T5 no, ALiBi yes (linear). Checked: half right. What "
           "decays for RoPE is an upper bound and the all-ones score, not typical scores; and the p·p term of the "
           "absolute sinusoidal encoding is exactly half of that all-ones score.\n",
           "   表中写:RoPE 是(自适应),绝对位置 否,T5 否,ALiBi 是(线性)。核对结果:对一半。RoPE 衰减的\n"
           "   是一个上界和全 1 向量的得分,不是典型的得分;而绝对正弦编码的 p·p 项恰好是全 1 得分的一半。\n");
  std::string header = fmt::format("     {:<30}", "|j − i|");
  for (double m : distances) header += fmt::format("{:>16}", format_number(m));
  out << header << '\n';
  const auto row = [&](const std::string& label, auto value) {
    std::string line = fmt::format("     {:<30}", label);
    for (Eigen::Index k = 0; k < at.size(); ++k) line += fmt::format("{:>16}", value(k));
    out << line << '\n';
  };
  row(t.format("ALiBi bias, m = {}", "ALiBi 偏置,m = {}", format_number(slopes.front())),
      [&](Eigen::Index k) { return format_number(0.0 - slopes.front() * at[k]); });
  row(t.format("ALiBi bias, m = {}", "ALiBi 偏置,m = {}", format_number(slopes.back())),
      [&](Eigen::Index k) { return format_number(0.0 - slopes.back() * at[k]); });
  row(t("RoPE bound f(m), (M11)", "RoPE 上界 f(m), (M11)"),
      [&](Eigen::Index k) { return fmt::format("{:.4f}", decay_bound(theta, at[k])); });
  row(t.format("RoPE <R_m q, k>, {} random", "RoPE <R_m q, k>,{} 对随机", kDecaySamples),
      [&](Eigen::Index k) { return fmt::format("{:.2f} ± {:.2f}", random.mean[k], random.stddev[k]); });
  row(t("RoPE score of q = k = 1, (M14)", "RoPE 全 1 得分 q = k = 1, (M14)"),
      [&](Eigen::Index k) { return fmt::format("{:.4f}", ones_score(theta, at[k])); });
  row(t("sinusoidal p_0·p_m", "正弦 p_0·p_m"),
      [&](Eigen::Index k) { return fmt::format("{:.4f}", p0.dot(sinusoidal_encoding(d, at[k], opt.base))); });
  out << t.format("     ALiBi: a linear penalty, m = {} … {} for the {} heads, without bound\n",
                  "     ALiBi:线性惩罚,{2} 个头的 m = {0} … {1},没有下界\n", format_number(slopes.front()),
                  format_number(slopes.back()), opt.heads);
  out << t.format("     RoPE: f(m) is RoFormer's upper bound on the size of the score (§3.4.3), up to a factor set by\n"
                  "       q and k; for random q, k ~ N(0, I) the score <R_m q, k> has mean 0 and sd √d = {:.2f} at every\n"
                  "       distance (M15): typical scores do not decay (docs/math.md)\n",
                  "     RoPE:f(m) 是 RoFormer 给出的得分大小的上界(§3.4.3),另有一个由 q 和 k 决定的系数;\n"
                  "       对随机的 q, k ~ N(0, I),得分 <R_m q, k> 在每个距离上的均值都是 0、标准差都是 √d = {:.2f}\n"
                  "       (M15):典型的得分并不衰减(见 docs/math.md)\n",
                  std::sqrt(static_cast<double>(d)));
  out << t("     sinusoidal: p_m·p_n = Σ_i cos((m − n)θ_i), half of RoPE's all-ones score (M12), (M14); the cross "
           "terms q·p_n and p_m·k do not decay\n",
           "     正弦:p_m·p_n = Σ_i cos((m − n)θ_i),是 RoPE 全 1 得分的一半 (M12), (M14);交叉项\n"
           "       q·p_n 和 p_m·k 不衰减\n");
  out << t.format("     T5 bias: trained values, so no decay is built in; beyond |j − i| = {} the bias is constant\n",
                  "     T5 偏置:数值是训练出来的,没有内置衰减;|j − i| 超过 {} 后偏置不变\n", starts.back());
  out << t("     learned: trained values; nothing to compute\n", "     可学习:数值是训练出来的;没有可计算的\n");

  // 3. Parameters and work.
  const double learned_params = L * d_model;
  const double t5_params = static_cast<double>(t5.num_buckets) * opt.heads;
  const double qk_work = L * L * d;
  out << t("\n3. Parameters and extra work  [computed]\n", "\n3. 参数量与额外计算量  [计算]\n");
  out << t("   the table: RoPE ≈0, absolute low, T5 high, ALiBi ≈0. Checked: T5's \"high\" is wrong for parameters, "
           "and \"absolute: low\" mixes sinusoidal (none) with learned (the most).\n",
           "   表中写:RoPE ≈0,绝对位置 低,T5 高,ALiBi ≈0。核对结果:就参数量而言 T5 的“高”是错的,\n"
           "   而“绝对位置:低”把正弦(没有参数)和可学习(参数最多)混为一谈。\n");
  out << fmt::format("     {:<11} {:>14}  {}\n", name(Encoding::Sinusoidal), "0", t("p_t is a formula", "p_t 是一个公式"));
  out << fmt::format("     {:<11} {:>14}  L × d_model = {} × {}\n", name(Encoding::LearnedAbsolute), count(learned_params),
                     opt.context, count(d_model));
  out << fmt::format("     {:<11} {:>14}  {}\n", name(Encoding::T5Bias), count(t5_params),
                     t.format("buckets × heads = {} × {}, once per layer stack: all layers share it",
                              "桶数 × 头数 = {} × {},整个层堆叠只有一份:所有层共用", t5.num_buckets, opt.heads));
  out << fmt::format("     {:<11} {:>14}  {}\n", "ALiBi", "0",
                     t.format("the slopes are fixed: 2^(−8h/n) for n = {}", "斜率是固定的:2^(−8h/n),n = {}", opt.heads));
  out << fmt::format("     {:<11} {:>14}  {}\n", "RoPE", "0",
                     t("the frequencies θ_i = base^(−2i/d) are fixed", "频率 θ_i = base^(−2i/d) 是固定的"));
  out << t.format("   work per head and layer at N = L = {}, against QKᵀ's N²·d = {} multiply-adds:\n",
                  "   N = L = {} 时每个头每层的计算量,对比 QKᵀ 的 N²·d = {} 次乘加:\n", opt.context, count(qk_work));
  out << t.format("     RoPE rotates q and k: 6·N·d = {} operations (M9), {} of QKᵀ\n",
                  "     RoPE 旋转 q 和 k:6·N·d = {} 次运算 (M9),是 QKᵀ 的 {}\n", count(6 * L * d), percent(6 * L * d, qk_work));
  out << t.format("     ALiBi and T5 add one bias per score: N² = {} additions, {} of QKᵀ (T5 also looks up buckets)\n",
                  "     ALiBi 和 T5 给每个得分加一个偏置:N² = {} 次加法,是 QKᵀ 的 {}(T5 还要查桶)\n", count(L * L),
                  percent(L * L, qk_work));
  out << t.format("     sinusoidal and learned add p_t once, at the input: N·d_model = {} additions per sequence\n",
                  "     正弦和可学习编码只在输入处加一次 p_t:每个序列 N·d_model = {} 次加法\n", count(L * d_model));
  out << t("     [cited] Press et al. 2021, Fig. 1: their T5 bias model ran out of memory on a 32 GB GPU at the\n"
           "     longest inputs\n",
           "     [引用] Press et al. 2021, Fig. 1:他们的 T5 偏置模型在最长的输入上\n"
           "     耗尽了 32 GB GPU 的显存\n");

  // 4. Extrapolation.
  const Eigen::Index first = first_pair_beyond(wavelengths(theta), L);
  out << t("\n4. Inputs longer than the trained length L\n", "\n4. 比训练长度 L 更长的输入\n");
  out << t("   the table: RoPE yes (with extension), absolute no, T5 no, ALiBi yes. Checked: agrees with the sources.\n",
           "   表中写:RoPE 是(需扩展),绝对位置 否,T5 否,ALiBi 是。核对结果:与出处一致。\n");
  out << fmt::format("     {:<11} {}\n", name(Encoding::LearnedAbsolute),
                     t.format("[computed] the table has rows 0 … {}: position {} has no embedding at all",
                              "[计算] 表只有第 0 … {} 行:位置 {} 根本没有嵌入", opt.context - 1, opt.context));
  out << fmt::format("     {:<11} {}\n", name(Encoding::Sinusoidal),
                     t("[cited] defined at every position, but perplexity rises beyond L (Press et al. 2021, Fig. 1)",
                       "[引用] 在每个位置都有定义,但超过 L 后困惑度上升(Press et al. 2021, Fig. 1)"));
  out << fmt::format("     {:<11} {}\n", name(Encoding::T5Bias),
                     t.format("[computed] every |j − i| >= {} reuses the last bucket; [cited] perplexity still rises "
                              "beyond L (Press et al. 2021, Fig. 1)",
                              "[计算] 所有 |j − i| >= {} 都复用最后一个桶;[引用] 超过 L 后\n"
                              "                 困惑度仍然上升(Press et al. 2021, Fig. 1)",
                              starts.back()));
  out << fmt::format("     {:<11} {}\n", "ALiBi",
                     t("[cited] trained on 1024 tokens, it reaches at 2048 the perplexity of a sinusoidal model "
                       "trained on 2048 (Press et al. 2021, abstract)",
                       "[引用] 在 1024 个词元上训练,它在 2048 处达到在 2048 上训练的正弦编码模型的\n"
                       "                 困惑度(Press et al. 2021,摘要)"));
  if (first < theta.size()) {
    out << fmt::format("     {:<11} {}\n", "RoPE",
                       t.format("[computed] within L = {}, pairs {} … {} of {} never complete a turn (M16), so longer inputs "
                                "show them angles never trained on; [cited] perplexity rises beyond L (Press et al. "
                                "2021, Fig. 1) unless rescaled: position interpolation (Chen et al. 2023, "
                                "arXiv:2306.15595) and the methods of rope --scaling (docs/scaling.md)",
                                "[计算] 在 L = {0} 之内,{3} 对中的第 {1} … {2} 对转不满一圈 (M16),所以更长的输入\n"
                                "                 会让它们出现训练中从未见过的角度;[引用] 超过 L 后困惑度上升(Press et al.\n"
                                "                 2021, Fig. 1),除非重新缩放:位置插值(Chen et al. 2023,\n"
                                "                 arXiv:2306.15595)以及 rope --scaling 的各种方法(docs/scaling.md)",
                                opt.context, first, theta.size() - 1, theta.size()));
  } else {
    out << fmt::format("     {:<11} {}\n", "RoPE",
                       t.format("[computed] within L = {} every pair completes a turn (M16); [cited] perplexity rises\n"
                                "                 beyond L (Press et al. 2021, Fig. 1) unless rescaled (docs/scaling.md)",
                                "[计算] 在 L = {} 之内每一对都能转满一圈 (M16);[引用] 超过 L 后困惑度上升\n"
                                "                 (Press et al. 2021, Fig. 1),除非重新缩放(docs/scaling.md)",
                                opt.context));
  }

  out << t("\n5. Short-context accuracy (all yes) and ease of extension  [not checked]\n"
           "   claims about trained models, given without a source; rope computes nothing for them\n",
           "\n5. 短上下文上的准确率(都写“是”)和扩展的难易  [未核实]\n"
           "   这些是关于训练后模型的结论,没有给出出处;rope 无法为它们计算任何东西\n");
  return rope_ok && exact_ok ? kOk : kVerifyFailed;
}

Command add_encodings_command(CLI::App& app) {
  auto opt = std::make_shared<EncodingsOptions>();
  CLI::App* sub = app.add_subcommand(
      "encodings", "Sinusoidal, learned, T5 bias, ALiBi and RoPE compared, each claim with the number behind it");
  add_int_option(*sub, "-n,--tokens", opt->tokens, fmt::format("tokens N of the shift test (1 … {})", kMaxAttentionTokens));
  add_int_option(*sub, "-d,--dim", opt->dim, fmt::format("head dimension d: even, 2 … {}", kMaxAttentionDim));
  add_int_option(*sub, "--heads", opt->heads, "heads of the model: ALiBi's slopes, T5's parameters, d_model = heads·d");
  add_long_option(*sub, "--context", opt->context, fmt::format("trained length L (1 … {})", kMaxContext));
  add_long_option(*sub, "--shift", opt->shift,
                  fmt::format("shift test: move every position by C (0 … {}, tokens + C <= L)", kMaxEncodingsShift));
  add_seed_option(*sub, opt->seed, "seed of q, k and of the random stand-ins for trained tables");
  add_base_option(*sub, opt->base);
  add_lang_option(*sub, opt->lang);
  sub->footer(
      "Exit codes: 0 ok; 1 RoPE's shift test exceeded its rounding tolerance, or T5's or ALiBi's was not 0.\n\n"
      "Example:\n  rope encodings\n  rope encodings --dim 128 --heads 32 --context 4096");
  // The report is prose beside numbers: its long lines are wrapped to the projector width.
  return {sub, [opt](std::ostream& out) {
            std::ostringstream report;
            const int code = run_encodings(*opt, report);
            out << wrap_lines(report.str());
            return code;
          }};
}

}  // namespace rope::cli
