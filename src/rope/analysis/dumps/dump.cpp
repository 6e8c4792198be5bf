#include "rope/analysis/dumps/dump.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/core/parse.hpp"
#include "rope/core/types.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

std::string_view to_string(DumpAxes axes) {
  switch (axes) {
    case DumpAxes::SeqD:
      return "seq,d";
    case DumpAxes::SeqHeadsD:
      return "seq,heads,d";
    case DumpAxes::BatchHeadsSeqD:
      return "batch,heads,seq,d";
    case DumpAxes::BatchSeqHeadsD:
      return "batch,seq,heads,d";
  }
  return "?";
}

DumpAxes parse_dump_axes(std::string_view text) {
  std::string canon;
  for (std::size_t a = 0; a <= text.size();) {
    std::size_t b = text.find(',', a);
    if (b == std::string_view::npos) b = text.size();
    std::string_view w = text.substr(a, b - a);
    while (!w.empty() && w.front() == ' ') w.remove_prefix(1);
    while (!w.empty() && w.back() == ' ') w.remove_suffix(1);
    const std::string_view word = w == "s" ? "seq" : w == "h" ? "heads" : w == "b" ? "batch" : w == "dim" ? "d" : w;
    canon += (canon.empty() ? "" : ",") + std::string(word);
    a = b + 1;
  }
  for (const DumpAxes axes :
       {DumpAxes::SeqD, DumpAxes::SeqHeadsD, DumpAxes::BatchHeadsSeqD, DumpAxes::BatchSeqHeadsD}) {
    if (canon == to_string(axes)) return axes;
  }
  std::string shown;
  for (const char c : text)
    shown +=
        (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? fmt::format("\\x{:02x}", unsigned(c)) : std::string(1, c);
  throw InvalidArgument(
      error_msg("{0} must be seq,d or seq,heads,d or batch,heads,seq,d or batch,seq,heads,d (got '{1}')",
                option_name("axes"), shown));
}

DumpAxes infer_dump_axes(const std::vector<long>& shape, long positions, const std::string& name, bool* assumed) {
  if (assumed) *assumed = false;
  if (shape.size() == 2) return DumpAxes::SeqD;
  if (shape.size() == 3) return DumpAxes::SeqHeadsD;
  if (shape.size() != 4) {
    throw InvalidArgument(
        error_msg("{0}: shape {1} has rank {2}; a dump has 2 to 4 axes ([seq, d], [seq, heads, d], "
                  "[batch, heads, seq, d] or [batch, seq, heads, d])",
                  name, shape_string(shape), shape.size()));
  }
  const bool heads_first = shape[2] == positions, seq_first = shape[1] == positions;
  if (heads_first && !seq_first) return DumpAxes::BatchHeadsSeqD;
  if (seq_first && !heads_first) return DumpAxes::BatchSeqHeadsD;
  if (positions > 0 && !heads_first && !seq_first) {
    throw InvalidArgument(
        error_msg("{0}: shape {1} has no axis of the {2} positions: neither [batch, heads, seq, d] nor "
                  "[batch, seq, heads, d] fits (the positions, or the tensor, are not the dump's)",
                  name, shape_string(shape), positions));
  }
  // Both readings fit, or no positions tell them apart: Hugging Face's, said so in the reports' headers.
  if (assumed) *assumed = true;
  return DumpAxes::BatchHeadsSeqD;
}

DumpVectors dump_geometry(const std::vector<long>& s, DumpAxes axes, const std::string& name, DumpStrides* strides) {
  const std::size_t rank = axes == DumpAxes::SeqD ? 2 : axes == DumpAxes::SeqHeadsD ? 3 : 4;
  if (s.size() != rank) {
    throw InvalidArgument(error_msg("{0}: shape {1} does not have the {2} axes of {3} {4}", name, shape_string(s), rank,
                                    option_name("axes"), to_string(axes)));
  }
  DumpVectors v;
  const long d = s.back();
  if (d % 2 != 0 || d > kMaxDim) {
    throw InvalidArgument(error_msg("{0}: the last axis of shape {1} is d = {2}, which must be even (and at most {3})",
                                    name, shape_string(s), d, kMaxDim));
  }
  v.d = static_cast<int>(d);
  // Strides (in elements) of seq, batch and heads in the C-order tensor.
  DumpStrides st;
  switch (axes) {
    case DumpAxes::SeqD:
      v.seq = s[0];
      st.seq = d;
      break;
    case DumpAxes::SeqHeadsD:
      v.seq = s[0];
      v.heads = s[1];
      st.seq = s[1] * d;
      st.heads = d;
      break;
    case DumpAxes::BatchHeadsSeqD:
      v.batch = s[0], v.heads = s[1], v.seq = s[2];
      st.batch = s[1] * s[2] * d, st.heads = s[2] * d, st.seq = d;
      break;
    case DumpAxes::BatchSeqHeadsD:
      v.batch = s[0], v.seq = s[1], v.heads = s[2];
      st.batch = s[1] * s[2] * d, st.seq = s[2] * d, st.heads = d;
      break;
  }
  if (strides) *strides = st;
  return v;
}

DumpVectors arrange_dump(const TensorData& tensor, DumpAxes axes, const std::string& name) {
  DumpStrides st;
  DumpVectors v = dump_geometry(tensor.shape, axes, name, &st);
  v.dtype = tensor.dtype;
  const long d = v.d;
  v.values.resize(tensor.values.size());
  double* out = v.values.data();
  for (long q = 0; q < v.seq; ++q) {
    for (long b = 0; b < v.batch; ++b) {
      for (long h = 0; h < v.heads; ++h) {
        const double* in = tensor.values.data() + q * st.seq + b * st.batch + h * st.heads;
        for (long c = 0; c < d; ++c) *out++ = in[c];
      }
    }
  }
  return v;
}

std::vector<double> parse_position_range(std::string_view text, std::string_view what) {
  const std::size_t c1 = text.find(':');
  if (c1 == std::string_view::npos)
    throw InvalidArgument(
        error_msg("{0} must be a range A:B or A:B:STEP (got '{1}')", what, escape_controls(text, kQuotedBytes)));
  const std::size_t c2 = text.find(':', c1 + 1);
  const long a = parse_integer(text.substr(0, c1), what);
  const long b =
      parse_integer(text.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1), what);
  const long step = c2 == std::string_view::npos ? 1 : parse_integer(text.substr(c2 + 1), what);
  if (step <= 0) throw InvalidArgument(error_msg("{0}: the step of A:B:STEP must be positive (got {1})", what, step));
  if (a < 0 || b <= a) throw InvalidArgument(error_msg("{0}: the range {1}:{2} must have 0 <= A < B", what, a, b));
  const long count = (b - a - 1) / step + 1;  // 0 <= a < b: no overflow
  if (count > kMaxDumpPositions) {
    throw InvalidArgument(
        error_msg("{0}: the range {1}:{2} has more than {3} positions", what, a, b, kMaxDumpPositions));
  }
  std::vector<double> out;
  for (long k = 0; k < count; ++k) out.push_back(static_cast<double>(a + k * step));  // a + k·step < b
  return out;
}

}  // namespace rope
