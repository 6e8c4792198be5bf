// The printers of a dump file's tensors (tensor_list_report.hpp).
#include "rope/report/tensor_list_report.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

Value tensor_list_value(const TensorListing& listing) {
  Value v = Value::object();
  v["file"] = listing.file;
  v["format"] = listing.format;
  Value list = Value::array();
  for (const TensorEntry& e : listing.tensors) {
    Value one = Value::object();
    one["name"] = e.name;
    one["dtype"] = e.dtype;
    one["shape"] = e.shape;
    one["strides"] = e.strides;
    one["offset"] = e.offset;
    if (!e.file.empty()) one["file"] = e.file;  // a sharded checkpoint: the shard holding it
    list.push_back(std::move(one));
  }
  v["tensors"] = std::move(list);
  return v;
}

void print_tensor_list(std::ostream& out, const TensorListing& listing, const Text& t) {
  out << t.tr("{0} ({1}): {2} tensors\n", escape_controls(listing.file, kQuotedBytes), listing.format,
              listing.tensors.size());
  std::size_t width = 4;
  for (const TensorEntry& e : listing.tensors) width = std::max(width, columns(escape_controls(e.name, kQuotedBytes)));
  width = std::min<std::size_t>(width, 60);
  const bool sharded =
      std::any_of(listing.tensors.begin(), listing.tensors.end(), [](const TensorEntry& e) { return !e.file.empty(); });
  out << "  " << pad(t.tr("name"), width) << "  " << pad(t.tr("dtype"), 9) << "  " << pad(t.tr("shape"), 20) << "  "
      << (sharded ? pad(t.tr("strides"), 20) + "  " + t.tr("shard") : t.tr("strides")) << '\n';
  for (const TensorEntry& e : listing.tensors) {
    std::string strides = e.strides.empty() ? std::string("-") : shape_string(e.strides);
    if (e.offset != 0) strides += t.tr(", offset {0}", e.offset);
    if (sharded) strides = pad(strides, 20) + "  " + escape_controls(e.file, kQuotedBytes);
    out << "  " << pad(e.name.empty() ? std::string("-") : escape_controls(e.name, kQuotedBytes), width) << "  "
        << pad(e.dtype, 9) << "  " << pad(shape_string(e.shape), 20) << "  " << strides << '\n';
  }
}

}  // namespace rope
