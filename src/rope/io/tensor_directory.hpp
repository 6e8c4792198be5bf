/// @file
/// A dump file opened once, for a run that reads several of its tensors (`rope check --tensor '*'`, docs/check.md
/// "Every layer at once"): its directory is read when it is opened (a safetensors header parsed once into every
/// entry's place, a torch.save archive's central directory and data.pkl, io/torch_file.hpp), and each tensor asked
/// for after is read alone, from where the directory says it lies: the work of a run is bounded by the file, not by
/// how many of its tensors the run reads (`detail::tensor_directory_reads`, tensor_file.hpp, counts the directories
/// read). Every rule and message is the one reader's (tensor_file.hpp, tensor_stream.hpp, torch_file.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rope/io/tensor_file.hpp"
#include "rope/io/tensor_list.hpp"
#include "rope/io/tensor_stream.hpp"

namespace rope {

/// Every entry of a safetensors header that rope reads (any dtype of parse_safetensors_header, integers
/// included), parsed once, in the header's order; an entry it cannot read is left out (parse_safetensors_header
/// names the rule when that entry is asked for). @throws InvalidArgument as parse_safetensors_header for the
/// header's own rules (its size, its JSON).
std::vector<std::pair<std::string, TensorHeader>> parse_safetensors_directory(std::string_view bytes,
                                                                              std::uint64_t file_size,
                                                                              const std::string& name,
                                                                              long max_elements);

class TensorDirectory {
 public:
  /// Opens `path` and reads its directory. @throws IoError (cannot read), InvalidArgument (a malformed header,
  /// archive or pickle; CSV, which holds no named tensors).
  static std::shared_ptr<const TensorDirectory> open(const std::string& path);

  TensorDirectory(const TensorDirectory&) = delete;
  TensorDirectory& operator=(const TensorDirectory&) = delete;
  ~TensorDirectory();

  const std::string& path() const;
  /// Its tensors, as list_tensors gives them.
  const TensorListing& listing() const;
  /// Whether its tensors are read in pieces (.npy, safetensors: stream); else whole (torch.save: read).
  bool streamable() const;
  /// The tensor `options.tensor` names, left on disk (streamable files). @throws as TensorStream::open.
  TensorStream stream(const TensorReadOptions& options) const;
  /// The tensor `options.tensor` names, read whole (at most kMaxTensorElements). @throws as read_tensor_file.
  TensorData read(const TensorReadOptions& options) const;

 private:
  struct State;
  explicit TensorDirectory(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

namespace detail {
/// The directories of tensor files read in this process (a .npy or safetensors header parsed, a torch.save
/// archive's central directory and data.pkl, a listing): tests bound the work of a run by it (`rope check
/// --tensor '*'` reads each file's once, tensor_directory.hpp).
long tensor_directory_reads();
/// Counts one.
void count_tensor_directory_read();
}  // namespace detail

}  // namespace rope
