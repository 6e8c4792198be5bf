#include "rope/analysis/dumps/dump_positions.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <sys/stat.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/text_file.hpp"
#include "rope/io/torch_file.hpp"
#include "rope/core/utf8.hpp"

namespace rope {
namespace {

/// Largest positions file (4,194,304 int64 positions of 4 components: 128 MiB).
constexpr std::size_t kMaxPositionsFileBytes = std::size_t{128} << 20;

void check_value(double v, const std::string& name) {
  if (!(std::abs(v) <= kMaxDumpPosition)) {
    throw InvalidArgument(error_msg("{0}: position {1} is outside [-2^24, 2^24]", name, v));
  }
}

}  // namespace

DumpPositions positions_from_tensor(const TensorData& t, const std::string& name) {
  DumpPositions p;
  p.shape = t.shape;
  const std::size_t rank = t.shape.size();
  if (rank == 1) {
    p.seq = t.shape[0];
  } else if (rank == 2) {
    p.rows = t.shape[0], p.seq = t.shape[1];
  } else if (rank == 3 && (t.shape[0] == 3 || t.shape[0] == 4)) {
    p.components = static_cast<int>(t.shape[0]), p.rows = t.shape[1], p.seq = t.shape[2];
  } else {
    throw InvalidArgument(
        error_msg("{0}: positions of shape {1}: expected [seq], [batch, seq] or [3 or 4, batch, seq] "
                  "(M-RoPE's t, h, w)",
                  name, shape_string(t.shape)));
  }
  if (p.rows < 1 || p.seq < 1)
    throw InvalidArgument(error_msg("{0}: positions of shape {1} hold no position", name, shape_string(t.shape)));
  if (p.rows * p.seq > kMaxDumpPositions) {
    throw InvalidArgument(error_msg("{0}: more than {1} positions", name, kMaxDumpPositions));
  }
  const long n = p.rows * p.seq;
  p.values.resize(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) {
    AxisPosition& a = p.values[static_cast<std::size_t>(i)];
    a.count = p.components;
    for (int k = 0; k < p.components; ++k) {
      const double v = t.values[static_cast<std::size_t>(k * n + i)];
      check_value(v, name);
      a.value[static_cast<std::size_t>(k)] = v;
    }
  }
  return p;
}

DumpPositions positions_from_text(std::string_view text, const std::string& name) {
  // One pass, counting as it reads: the values in one list, the number of rows and whether they all have the first
  // row's width; past kMaxDumpPositions values it stops (a vector per line first took 64 MiB of "0\n" to 22 s and
  // 2 GB before the count refused it).
  TensorData t;
  long rows = 0;
  std::size_t width = 0;
  bool same_width = true;
  long line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.front() == '#') continue;
    std::size_t items = 0;
    std::string item;
    const auto flush = [&] {
      if (item.empty()) return;
      if (static_cast<long>(t.values.size()) >= kMaxDumpPositions) {
        throw InvalidArgument(error_msg("{0}: more than {1} positions", name, kMaxDumpPositions));
      }
      t.values.push_back(parse_real(item, fmt::format("{} line {}", name, line_no)));
      ++items;
      item.clear();
    };
    for (const char c : line) {
      if (c == ',' || c == ' ' || c == '\t' || c == '\r')
        flush();
      else
        item += c;
    }
    flush();
    if (items == 0) continue;
    if (rows++ == 0) width = items;
    same_width = same_width && items == width;
  }
  if (t.values.empty()) throw InvalidArgument(error_msg("{0}: no position", name));
  const bool table = rows > 1 && width > 1 && same_width;
  t.shape =
      table ? std::vector<long>{rows, static_cast<long>(width)} : std::vector<long>{static_cast<long>(t.values.size())};
  return positions_from_tensor(t, name);
}

namespace {

/// The comma-separated fields of `line`, lowercased.
std::vector<std::string> header_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  for (const char c : line) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return fields;
}

/// `text` with its first line that is neither blank nor a '#' comment turned into a comment when it names the
/// columns of `header` (spaces aside): a CSV's column names, each field beginning with its column's name
/// ("old,new", "old_pos,new_pos", "old_position,new_position"). A first line of names in another order, or of other
/// names, is refused naming the columns expected (a number is never a name: such a line is data).
std::string without_header(std::string_view text, std::string_view header, const std::string& name) {
  std::string out(text);
  const std::vector<std::string> columns = header_fields(std::string(header));
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t end = std::min(out.find('\n', at), out.size());
    std::string line;
    for (std::size_t i = at; i < end; ++i) {
      if (out[i] != ' ' && out[i] != '\t' && out[i] != '\r') line += out[i];
    }
    if (!line.empty() && line[0] != '#') {
      const std::vector<std::string> fields = header_fields(line);
      const auto named = [&](const std::vector<std::string>& order) {
        if (fields.size() != order.size()) return false;
        for (std::size_t c = 0; c < order.size(); ++c) {
          if (fields[c].rfind(order[c], 0) != 0) return false;
        }
        return true;
      };
      if (named(columns)) {
        out.insert(at, "#");
      } else if (std::isalpha(static_cast<unsigned char>(line[0])) != 0) {
        const std::vector<std::string> swapped(columns.rbegin(), columns.rend());
        throw InvalidArgument(
            named(swapped)
                ? error_msg("{0}: its header '{1}' puts the columns in the other order: a row is {2} (a header "
                            "'{3}' or '{4}' is skipped)",
                            name, escape_controls(line, kQuotedBytes), std::string(header), std::string(header),
                            "old_pos,new_pos")
                : error_msg(
                      "{0}: its first line '{1}' is neither a row of numbers nor the header {2}: a row is {3} (a header "
                      "'{4}' or '{5}' is skipped)",
                      name, escape_controls(line, kQuotedBytes), std::string(header), std::string(header),
                      std::string(header), "old_pos,new_pos"));
      }
      break;
    }
    at = end + 1;
  }
  return out;
}

DumpPositions read_positions_bytes(const std::string& path, const std::string& what, const std::string& tensor,
                                   std::string_view header) {
  const std::string name = fmt::format("{} '{}'", what, escape_controls(path, kQuotedBytes));
  TensorReadOptions read;
  read.integers = true;
  read.tensor = tensor;
  // torch.save, streamed (io/torch_file.hpp): the archive's directory and the positions' bytes alone, so positions
  // stored beside the dumped tensors of a large file are read without the file.
  if (is_zip_file(path)) return positions_from_tensor(TorchArchive::open(path, name).read(read), name);
  // A regular file larger than the limit is refused by its size, unread (an 8 GB sparse file took 4.4 s and 267 MB
  // to be read up to the limit and refused); the bounded read stops one buffer past the limit all the same.
  struct stat st {};
  const bool larger = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                      static_cast<std::uintmax_t>(st.st_size) > kMaxPositionsFileBytes;
  const BoundedRead file = larger ? BoundedRead{} : read_file_bounded(path, kMaxPositionsFileBytes);
  if (file.error != 0)
    throw IoError(error_msg("cannot read {0} '{1}': {2}", what, escape_controls(path, kQuotedBytes), file.reason()));
  if (larger || file.text.size() > kMaxPositionsFileBytes) {
    throw InvalidArgument(
        error_msg("{0}: larger than the {1}-byte limit for a positions file", name, kMaxPositionsFileBytes));
  }
  const std::string_view bytes = file.text;
  if (is_zip_archive(bytes)) return positions_from_tensor(parse_torch(bytes, name, read), name);
  if (bytes.size() >= 9 && bytes[8] == '{') return positions_from_tensor(parse_safetensors(bytes, name, read), name);
  if (!tensor.empty()) {
    throw InvalidArgument(error_msg("{0} '{1}' names a tensor of a safetensors or torch.save file, and {2} is not one",
                                    option_name("positions_tensor"), escape_controls(tensor, kQuotedBytes), name));
  }
  if (bytes.size() >= 6 && bytes.substr(0, 6) == std::string_view("\x93NUMPY", 6)) {
    return positions_from_tensor(parse_npy(bytes, name, read), name);
  }
  if (bytes.find('\0') != std::string_view::npos) {
    throw InvalidArgument(error_msg("{0}: neither .npy, safetensors nor text (it holds a NUL byte)", name));
  }
  return header.empty() ? positions_from_text(bytes, name)
                        : positions_from_text(without_header(bytes, header, name), name);
}

}  // namespace

DumpPositions read_positions_file(const std::string& path, const std::string& what, const std::string& tensor) {
  return read_positions_bytes(path, what, tensor, {});
}

std::vector<ShiftMapRow> read_shift_map_file(const std::string& path, const std::string& what) {
  const DumpPositions p = read_positions_bytes(path, what, "", "old,new");
  const std::string name = fmt::format("{} '{}'", what, escape_controls(path, kQuotedBytes));
  if (p.components != 1 || p.seq != 2) {
    throw InvalidArgument(error_msg("{0}: shape [{1}] is not [n, 2], a row (old, new) per key", name,
                                    fmt::format("{}", fmt::join(p.shape, ", "))));
  }
  std::vector<ShiftMapRow> rows;
  rows.reserve(static_cast<std::size_t>(p.rows));
  for (long r = 0; r < p.rows; ++r) {
    const double old_position = p.values[static_cast<std::size_t>(2 * r)].value[0];
    const double new_position = p.values[static_cast<std::size_t>(2 * r + 1)].value[0];
    if (!(std::abs(new_position - old_position) <= kMaxDumpPosition)) {
      throw InvalidArgument(error_msg("{0}: row {1} moves a key by {2} − {3}, beyond 2^24", name, r,
                                      format_number(new_position), format_number(old_position)));
    }
    rows.push_back({old_position, new_position});
  }
  return rows;
}

std::vector<DumpSegment> segments_from_starts(const std::vector<double>& starts, long seq, const std::string& what) {
  std::vector<long> s;
  for (const double v : starts) {
    if (!(v >= 0 && v <= static_cast<double>(seq) && v == std::floor(v))) {
      throw InvalidArgument(error_msg("{0}: {1} is not a sequence index in [0, {2}]", what, v, seq));
    }
    s.push_back(static_cast<long>(v));
  }
  if (!s.empty() && s.back() == seq) s.pop_back();  // cu_seqlens ends with the total
  if (s.empty() || s.front() != 0)
    throw InvalidArgument(error_msg("{0}: the first sequence must start at index 0", what));
  std::vector<DumpSegment> segments;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const long end = i + 1 < s.size() ? s[i + 1] : seq;
    if (end <= s[i]) throw InvalidArgument(error_msg("{0}: the starts must increase ({1} after {2})", what, end, s[i]));
    segments.push_back({s[i], end - s[i]});
  }
  return segments;
}

std::vector<double> positions_within_segments(const std::vector<DumpSegment>& segments) {
  std::vector<double> p;
  for (const DumpSegment& g : segments) {
    for (long i = 0; i < g.length; ++i) p.push_back(static_cast<double>(i));
  }
  return p;
}

std::vector<DumpSegment> row_segments(long rows, long length) {
  std::vector<DumpSegment> segments;
  for (long b = 0; b < rows; ++b) segments.push_back({b * length, length});
  return segments;
}

DumpVectors rows_along_sequence(const DumpVectors& dump) {
  if (dump.batch == 1) return dump;
  DumpVectors out;
  out.seq = dump.seq * dump.batch;
  out.batch = 1;
  out.heads = dump.heads;
  out.d = dump.d;
  out.dtype = dump.dtype;
  out.values.resize(dump.values.size());
  if (dump.values.empty()) return out;  // the geometry alone (a streamed dump)
  for (long b = 0; b < dump.batch; ++b) {
    for (long s = 0; s < dump.seq; ++s) {
      for (long h = 0; h < dump.heads; ++h) {
        const double* from = dump.vector(s, b * dump.heads + h);
        std::copy(from, from + dump.d, out.values.begin() + ((b * dump.seq + s) * dump.heads + h) * dump.d);
      }
    }
  }
  return out;
}

DumpVectors slice_sequence(const DumpVectors& dump, long start, long length) {
  DumpVectors out = dump;
  out.values.assign(dump.values.begin() + start * dump.groups() * dump.d,
                    dump.values.begin() + (start + length) * dump.groups() * dump.d);
  out.seq = length;
  return out;
}

std::vector<long> position_restarts(const std::vector<double>& positions) {
  std::vector<long> at;
  for (std::size_t s = 1; s < positions.size(); ++s) {
    if (positions[s] <= positions[s - 1]) at.push_back(static_cast<long>(s));
  }
  return at;
}

std::optional<DumpPositions> read_axis_positions_tensor(const std::string& path, const std::string& what) {
  const BoundedRead head = read_file_bounded(path, 16);
  if (head.error != 0) return std::nullopt;  // the text reader words the error
  const std::string_view bytes = head.text;
  const bool tensor = is_zip_archive(bytes) || (bytes.size() >= 9 && bytes[8] == '{') ||
                      (bytes.size() >= 6 && bytes.substr(0, 6) == std::string_view("\x93NUMPY", 6));
  if (!tensor) return std::nullopt;
  DumpPositions p = read_positions_file(path, what);
  if (p.components > 1) return p;
  const long c = p.shape.size() == 2 ? p.shape[0] : 0;
  if (c < 2 || c > 4) {
    throw InvalidArgument(
        error_msg("{0} '{1}': positions of shape {2}: expected [C, seq] or [C, batch, seq] with C = "
                  "2, 3 or 4 components per position (HF's position_ids [3, batch, seq])",
                  what, escape_controls(path, kQuotedBytes), shape_string(p.shape)));
  }
  // [C, seq] read as C rows of one component: each index's C components instead.
  DumpPositions axes;
  axes.shape = p.shape, axes.components = static_cast<int>(c), axes.rows = 1, axes.seq = p.seq;
  axes.values.resize(static_cast<std::size_t>(p.seq));
  for (long i = 0; i < p.seq; ++i) {
    AxisPosition& a = axes.values[static_cast<std::size_t>(i)];
    a.count = static_cast<int>(c);
    for (long k = 0; k < c; ++k)
      a.value[static_cast<std::size_t>(k)] = p.values[static_cast<std::size_t>(k * p.seq + i)].value[0];
  }
  return axes;
}

}  // namespace rope
