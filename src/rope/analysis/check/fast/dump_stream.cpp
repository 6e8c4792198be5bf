#include "rope/analysis/check/fast/dump_stream.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>

#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

bool little_endian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

}  // namespace

StreamSource::StreamSource(TensorStream before, TensorStream after, DumpAxes axes, bool rows, std::vector<long> view)
    : before_(std::move(before)), after_(std::move(after)), rows_(rows) {
  if (before_.header().shape != after_.header().shape) {
    throw InvalidArgument(error_msg("the dumps before and after differ in shape: {0} against {1}",
                                    shape_string(before_.header().shape), shape_string(after_.header().shape)));
  }
  file_ = dump_geometry(view.empty() ? after_.header().shape : view, axes, after_.name(), &strides_);
  file_.dtype = after_.header().dtype;
  geometry_ = rows_ ? rows_along_sequence(file_) : file_;
  // Read as stored when both files hold one type the kernel reads and a block is one run of each file.
  const auto element = [](const TensorHeader& h) -> std::optional<BlockElement> {
    if (h.big_endian || !little_endian() || h.data_offset % static_cast<std::uint64_t>(h.bytes) != 0)
      return std::nullopt;
    if (h.kind == 'f' && h.bytes == 8) return BlockElement::F64;
    if (h.kind == 'f' && h.bytes == 4) return BlockElement::F32;
    if (h.bytes == 2 && h.dtype == DType::BF16) return BlockElement::BF16;
    return std::nullopt;
  };
  const auto eb = element(before_.header()), ea = element(after_.header());
  // One run: a single batch row, or the batch rows laid along the sequence where each row follows the last in the
  // file ([batch, seq, heads, d] as stored: compared index b·seq + s lies at (b·seq + s)·heads·d).
  const bool one_run = rows_ ? strides_.batch == file_.seq * strides_.seq : file_.batch == 1;
  if (eb && eb == ea && strides_.seq == file_.heads * file_.d) {
    // Otherwise the batch rows are groups (b·heads + h at each position): a run per row, its vectors moved to them.
    if (one_run || !rows_) raw_ = eb;
    gather_ = !one_run && !rows_;
  }
}

std::uint64_t StreamSource::data_bytes() const {
  return static_cast<std::uint64_t>(before_.header().count) * static_cast<std::uint64_t>(before_.header().bytes) +
         static_cast<std::uint64_t>(after_.header().count) * static_cast<std::uint64_t>(after_.header().bytes);
}

void StreamSource::fetch(long start, long s0, long s1, BlockBuffers& buf) const {
  const long groups = geometry_.groups(), heads = file_.heads, seq = file_.seq;
  const int d = file_.d;
  const auto n = static_cast<std::size_t>((s1 - s0) * groups * d);
  buf.before.resize(n), buf.after.resize(n);
  // The indices [start + s0, start + s1) of the compared sequence axis, a batch row at a time when the rows
  // are laid along it; within one row, the file's runs of consecutive vectors.
  for (long e = start + s0; e < start + s1;) {
    const long b_row = rows_ ? e / seq : 0;
    const long a = rows_ ? e % seq : e;                                       // file sequence index of e
    const long c = rows_ ? std::min(seq, a + (start + s1 - e)) : start + s1;  // end within the row
    const long first_b = rows_ ? b_row : 0, last_b = rows_ ? b_row + 1 : file_.batch;
    const bool seq_major = strides_.seq == heads * d;  // [.., seq, heads, d]: a run covers every head
    for (long b = first_b; b < last_b; ++b) {
      for (long h = 0; h < (seq_major ? 1 : heads); ++h) {
        const long first = b * strides_.batch + (seq_major ? a * strides_.seq : h * strides_.heads + a * d);
        const long vectors = seq_major ? (c - a) * heads : (c - a);
        for (int which = 0; which < 2; ++which) {
          const TensorStream& file = which == 0 ? before_ : after_;
          std::vector<double>& out = which == 0 ? buf.before : buf.after;
          unsigned char* raw = buf.raw.at_least(static_cast<std::size_t>(vectors * d * file.header().bytes));
          file.read_raw(first, vectors * d, raw);
          for (long j = 0; j < vectors; ++j) {
            const long s = a + (seq_major ? j / heads : j), hh = seq_major ? j % heads : h;
            const long g = rows_ ? hh : b * heads + hh;
            const long rel = (rows_ ? b * seq + s : s) - (start + s0);
            decode_elements(raw + j * d * file.header().bytes, d, file.header(), out.data() + (rel * groups + g) * d);
          }
        }
      }
    }
    e += c - a;
  }
}

std::vector<DumpComparison> StreamSource::compare(long start, const std::vector<AxisPosition>& positions,
                                                  const std::vector<Variant>& variants, const ComparePass& pass) const {
  const long length = static_cast<long>(positions.size());
  if (start < 0 || start + length > geometry_.seq) {
    throw InvalidArgument(
        error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), geometry_.seq));
  }
  const BlockShape shape{length, geometry_.groups(), geometry_.d, geometry_.dtype, geometry_.heads};
  const BlockFetch get = [&](long s0, long s1, BlockBuffers& buf, BlockView& view) {
    if (raw_ && gather_) {  // a run of each batch row read as stored, each position's heads moved to b·heads + h
      const long batch = file_.batch, run = (s1 - s0) * strides_.seq;
      for (int which = 0; which < 2; ++which) {
        const TensorStream& file = which == 0 ? before_ : after_;
        const auto bytes = static_cast<std::size_t>(file.header().bytes);
        const auto vector_bytes = static_cast<std::size_t>(strides_.seq) * bytes;  // a position's heads
        unsigned char* out =
            (which == 0 ? buf.raw : buf.raw_after).at_least(static_cast<std::size_t>(run * batch) * bytes);
        unsigned char* row = buf.row.at_least(static_cast<std::size_t>(run) * bytes);
        for (long b = 0; b < batch; ++b) {
          file.read_raw(b * strides_.batch + (start + s0) * strides_.seq, run, row);
          for (long s = 0; s < s1 - s0; ++s)
            std::memcpy(out + static_cast<std::size_t>(s * batch + b) * vector_bytes,
                        row + static_cast<std::size_t>(s) * vector_bytes, vector_bytes);
        }
      }
      view = {buf.raw.data(), buf.raw_after.data(), *raw_};
      return;
    }
    if (raw_) {  // one run of each file, [s][head][d] as compared: read as stored into the thread's buffers
      const long first = (start + s0) * strides_.seq, count = (s1 - s0) * geometry_.groups() * geometry_.d;
      for (int which = 0; which < 2; ++which) {
        ByteBuffer& raw = which == 0 ? buf.raw : buf.raw_after;
        const TensorStream& file = which == 0 ? before_ : after_;
        file.read_raw(first, count, raw.at_least(static_cast<std::size_t>(count * file.header().bytes)));
      }
      view = {buf.raw.data(), buf.raw_after.data(), *raw_};
      return;
    }
    fetch(start, s0, s1, buf);
    view = {buf.before.data(), buf.after.data(), BlockElement::F64};
  };
  const long block = raw_ ? kRawBlockBytes / static_cast<long>(before_.header().bytes) : kStreamBlockElements;
  return compare_blocks(shape, positions, variants, get, block_positions_for(geometry_.groups(), geometry_.d, block),
                        progress_ && pass.only.empty() ? &progress_ : nullptr, pass);  // a sample is no pass
}

std::pair<DumpVectors, DumpVectors> StreamSource::read(const std::vector<long>& indices, long groups) const {
  groups = std::max<long>(1, std::min(groups, geometry_.groups()));
  std::pair<DumpVectors, DumpVectors> out;
  for (DumpVectors* v : {&out.first, &out.second}) {
    *v = geometry_;
    v->seq = static_cast<long>(indices.size());
    v->batch = 1, v->heads = groups;
    v->values.assign(static_cast<std::size_t>(v->seq * groups * v->d), 0.0);
  }
  out.first.dtype = before_.header().dtype;
  const long block = block_positions_for(geometry_.groups(), geometry_.d, kStreamBlockElements);
  const long d = geometry_.d, all = geometry_.groups();
  BlockBuffers buf;
  for (std::size_t k = 0; k < indices.size();) {
    // The run of consecutive indices from indices[k], at most a block long.
    std::size_t e = k + 1;
    while (e < indices.size() && indices[e] == indices[e - 1] + 1 && static_cast<long>(e - k) < block) ++e;
    fetch(0, indices[k], indices[e - 1] + 1, buf);
    for (std::size_t j = k; j < e; ++j) {
      const long rel = indices[j] - indices[k];
      for (long g = 0; g < groups; ++g) {
        const auto from = static_cast<std::size_t>((rel * all + g) * d),
                   to = static_cast<std::size_t>((static_cast<long>(j) * groups + g) * d);
        std::copy_n(buf.before.begin() + static_cast<long>(from), d, out.first.values.begin() + static_cast<long>(to));
        std::copy_n(buf.after.begin() + static_cast<long>(from), d, out.second.values.begin() + static_cast<long>(to));
      }
    }
    k = e;
  }
  return out;
}

std::pair<std::vector<double>, std::vector<double>> StreamSource::vector_at(long index, long group) const {
  const std::lock_guard<std::mutex> lock(last_->mutex);
  if (last_->index != index) last_->vectors = read({index}, geometry_.groups()), last_->index = index;
  const auto& [before, after] = last_->vectors;
  const auto at = static_cast<long>(group * geometry_.d);
  return {{before.values.begin() + at, before.values.begin() + at + geometry_.d},
          {after.values.begin() + at, after.values.begin() + at + geometry_.d}};
}

DumpSample sample_dump(const StreamSource& source, long max_elements, bool every_group) {
  DumpSample s;
  const long seq = source.seq(), d = source.d();
  s.groups = every_group ? source.groups()
                         : std::max<long>(1, std::min(source.groups(), max_elements / std::max<long>(1, seq * d)));
  const long budget = std::max<long>(1, max_elements / (s.groups * d));  // sequence indices kept
  if (budget >= seq) {
    for (long i = 0; i < seq; ++i) s.indices.push_back(i);
  } else {
    const long window = std::min<long>(256, budget), windows = std::max<long>(1, budget / window);
    for (long w = 0; w < windows; ++w) {
      const long first = windows == 1 ? 0 : w * (seq - window) / (windows - 1);
      for (long i = first; i < first + window; ++i) {
        if (s.indices.empty() || i > s.indices.back()) s.indices.push_back(i);
      }
    }
  }
  auto pair = source.read(s.indices, s.groups);
  s.before = std::move(pair.first);
  s.after = std::move(pair.second);
  return s;
}

bool StreamSource::after_looks_like_bf16() const {
  if (bf16_) return *bf16_;
  const TensorHeader& h = after_.header();
  std::vector<unsigned char> raw;
  std::vector<double> values(static_cast<std::size_t>(kStreamBlockElements));
  bool nonzero = false, all = true;
  for (long first = 0; first < h.count && all; first += kStreamBlockElements) {
    const long n = std::min(kStreamBlockElements, h.count - first);
    after_.read(first, n, values.data(), raw);
    for (long k = 0; k < n && all; ++k) {
      const double v = values[static_cast<std::size_t>(k)];
      const auto f = static_cast<float>(v);
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      all = static_cast<double>(f) == v && (bits & 0xffffu) == 0;
      nonzero = nonzero || v != 0;
    }
  }
  bf16_ = all && nonzero;
  return *bf16_;
}

}  // namespace rope
