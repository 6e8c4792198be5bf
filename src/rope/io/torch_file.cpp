// The torch.save reader (torch_file.hpp): the zip archive through minizip over the bytes in memory or the file
// (pread: a record stored is read where it lies, only the bytes a view spans), data.pkl
// through an interpreter of the pickle subset torch.save writes, nothing executed: a global is a name looked up
// in a short table (the rebuild functions, OrderedDict, the typed storages, the dtypes), never imported or
// called, and anything else stops the reading at the opcode that names it. BUILD is read only where
// `torch.save(model.state_dict())` writes it: on an OrderedDict made by REDUCE of collections.OrderedDict, with a
// dict state (its `_metadata`, which torch.load's weights-only unpickler sets as an attribute, not an item: rope lists
// the tensors and ignores it; OrderedDict.__reduce__ in CPython's Lib/collections/__init__.py gives vars(self) as the
// state); BUILD on anything else (which may call __setstate__) is refused.
//
// Pickle opcodes from CPython's Lib/pickletools.py (the opcode table; protocol 2 is what torch.save writes,
// DEFAULT_PROTOCOL = 2 in torch/serialization.py); the few of protocols 3 and 4 that only carry data (the
// unicode and bytes forms, FRAME, MEMOIZE, STACK_GLOBAL) are read too.
#include "rope/io/torch_file.hpp"

#include <minizip/unzip.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/input_files.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/io/tensor_stream.hpp"
#include "rope/core/utf8.hpp"

namespace rope {
namespace {

// ---------------------------------------------------------------- the zip layer (minizip over memory or a file)

/// The archive's bytes as minizip reads them: a buffer in memory, or a file read by pread (never copied whole).
struct ZipBytes {
  std::string_view bytes;  ///< in memory (fd < 0)
  int fd = -1;             ///< on disk
  std::uint64_t size = 0;
  std::uint64_t pos = 0;
};

voidpf ZCALLBACK torch_zip_open(voidpf opaque, const void*, int) { return opaque; }
uLong ZCALLBACK torch_zip_read(voidpf, voidpf stream, void* buf, uLong size) {
  auto* m = static_cast<ZipBytes*>(stream);
  if (m->pos >= m->size) return 0;
  const auto n = static_cast<uLong>(std::min<std::uint64_t>(size, m->size - m->pos));
  if (m->fd >= 0) {
    const long long got = pread_full(m->fd, static_cast<unsigned char*>(buf), n, m->pos);
    if (got <= 0) return 0;
    m->pos += static_cast<std::uint64_t>(got);
    return static_cast<uLong>(got);
  }
  std::memcpy(buf, m->bytes.data() + m->pos, n);
  m->pos += n;
  return n;
}
uLong ZCALLBACK torch_zip_write(voidpf, voidpf, const void*, uLong) { return 0; }
ZPOS64_T ZCALLBACK torch_zip_tell(voidpf, voidpf stream) { return static_cast<ZipBytes*>(stream)->pos; }
long ZCALLBACK torch_zip_seek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* m = static_cast<ZipBytes*>(stream);
  std::uint64_t base = 0;
  if (origin == ZLIB_FILEFUNC_SEEK_CUR) base = m->pos;
  if (origin == ZLIB_FILEFUNC_SEEK_END) base = m->size;
  if (offset > m->size || base > m->size - offset) return -1;
  m->pos = base + offset;
  return 0;
}
int ZCALLBACK torch_zip_close(voidpf, voidpf) { return 0; }
int ZCALLBACK torch_zip_error(voidpf, voidpf) { return 0; }

struct ZipRecord {
  unz64_file_pos where{};
  std::uint64_t size = 0;  ///< uncompressed
  unsigned long method = 0;
};

/// The archive's records by name, and reading one.
class TorchZip {
 public:
  /// `source` (memory or a file) must outlive the archive.
  TorchZip(const ZipBytes& source, const std::string& name) : name_(name), source_(source) {
    zlib_filefunc64_def io{};
    io.zopen64_file = torch_zip_open;
    io.zread_file = torch_zip_read;
    io.zwrite_file = torch_zip_write;
    io.ztell64_file = torch_zip_tell;
    io.zseek64_file = torch_zip_seek;
    io.zclose_file = torch_zip_close;
    io.zerror_file = torch_zip_error;
    io.opaque = &source_;
    zip_ = unzOpen2_64("", &io);
    if (!zip_) {
      throw InvalidArgument(error_msg(
          "{0}: not a complete zip archive (no end of central directory): truncated, or not written by torch.save",
          name_));
    }
    char filename[1024];
    for (int r = unzGoToFirstFile(zip_); r == UNZ_OK; r = unzGoToNextFile(zip_)) {
      unz_file_info64 info{};
      if (unzGetCurrentFileInfo64(zip_, &info, filename, sizeof filename, nullptr, 0, nullptr, 0) != UNZ_OK) break;
      ZipRecord rec;
      unzGetFilePos64(zip_, &rec.where);
      rec.size = info.uncompressed_size;
      rec.method = info.compression_method;
      const std::size_t len = std::min<std::size_t>(info.size_filename, sizeof filename);
      records_.emplace(std::string(filename, len), rec);
    }
  }
  ~TorchZip() {
    if (zip_) unzClose(zip_);
  }
  TorchZip(const TorchZip&) = delete;
  TorchZip& operator=(const TorchZip&) = delete;

  const ZipRecord* find(const std::string& record) const {
    const auto it = records_.find(record);
    return it == records_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, ZipRecord>& records() const { return records_; }

  /// Bytes [first, first + count) of a record: where it is stored (torch.save writes every record stored), a view
  /// into the bytes in memory or those bytes alone read from the file into `buffer`; else inflated into `buffer`
  /// (the bytes before `first` inflated and dropped a block at a time).
  std::string_view read(const std::string& record, std::uint64_t first, std::uint64_t count,
                        std::vector<unsigned char>& buffer) {
    const ZipRecord* rec = find(record);
    unz64_file_pos where = rec->where;
    const auto damaged = [&] {
      return InvalidArgument(error_msg("{0}: record {1} cannot be read (a damaged archive)", name_,
                                       escape_controls(record, kQuotedBytes)));
    };
    if (first > rec->size || count > rec->size - first) throw damaged();
    if (unzGoToFilePos64(zip_, &where) != UNZ_OK || unzOpenCurrentFile(zip_) != UNZ_OK) throw damaged();
    if (rec->method == 0) {
      const ZPOS64_T start = unzGetCurrentFileZStreamPos64(zip_);
      unzCloseCurrentFile(zip_);
      if (start > source_.size || first > source_.size - start || count > source_.size - start - first) throw damaged();
      const std::uint64_t at = start + first;
      if (source_.fd < 0) return source_.bytes.substr(static_cast<std::size_t>(at), static_cast<std::size_t>(count));
      buffer.resize(static_cast<std::size_t>(count));
      const long long got = pread_full(source_.fd, buffer.data(), buffer.size(), at);
      if (got < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", name_, std::strerror(errno)));
      if (static_cast<std::uint64_t>(got) < count) throw damaged();  // the file shrank since it was opened
      return {reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(count)};
    }
    std::vector<unsigned char> skip;
    for (std::uint64_t dropped = 0; dropped < first;) {
      skip.resize(1u << 20);
      const auto chunk = static_cast<unsigned>(std::min<std::uint64_t>(first - dropped, skip.size()));
      const int n = unzReadCurrentFile(zip_, skip.data(), chunk);
      if (n <= 0) {
        unzCloseCurrentFile(zip_);
        throw damaged();
      }
      dropped += static_cast<std::uint64_t>(n);
    }
    buffer.resize(static_cast<std::size_t>(count));
    std::uint64_t done = 0;
    while (done < count) {
      const auto chunk = static_cast<unsigned>(std::min<std::uint64_t>(count - done, 1u << 20));
      const int n = unzReadCurrentFile(zip_, buffer.data() + done, chunk);
      if (n <= 0) {
        unzCloseCurrentFile(zip_);
        throw damaged();
      }
      done += static_cast<std::uint64_t>(n);
    }
    unzCloseCurrentFile(zip_);
    return {reinterpret_cast<const char*>(buffer.data()), static_cast<std::size_t>(count)};
  }

 private:
  std::string name_;
  ZipBytes source_;
  unzFile zip_ = nullptr;
  std::map<std::string, ZipRecord> records_;
};

// ---------------------------------------------------------------- the pickle subset

/// The globals data.pkl may name: looked up, never imported.
enum class Global { OrderedDict, RebuildTensor, RebuildParameter, Storage, DType };

struct TorchType {
  const char* storage;  ///< torch.<storage>
  const char* dtype;    ///< torch.<dtype>, also its name in messages
  int bytes;
  char kind;
  DType value;
  bool integer;
};
constexpr TorchType kTorchTypes[] = {
    {"FloatStorage", "float32", 4, 'f', DType::F32, false},
    {"DoubleStorage", "float64", 8, 'f', DType::F64, false},
    {"HalfStorage", "float16", 2, 'h', DType::F16, false},
    {"BFloat16Storage", "bfloat16", 2, 'h', DType::BF16, false},
    {"LongStorage", "int64", 8, 'i', DType::F64, true},
    {"IntStorage", "int32", 4, 'i', DType::F64, true},
    {"ShortStorage", "int16", 2, 'i', DType::F64, true},
    {"CharStorage", "int8", 1, 'i', DType::F64, true},
    {"ByteStorage", "uint8", 1, 'u', DType::F64, true},
    // Data rope lists and never reads (kind 'x'): bool, complex and float8 storages (torch/storage.py's typed
    // storages, torch.save's persistent ids), refused by name where a tensor of them is read.
    {"BoolStorage", "bool", 1, 'x', DType::F64, false},
    {"ComplexHalfStorage", "complex32", 4, 'x', DType::F64, false},
    {"ComplexFloatStorage", "complex64", 8, 'x', DType::F64, false},
    {"ComplexDoubleStorage", "complex128", 16, 'x', DType::F64, false},
    {"Float8_e4m3fnStorage", "float8_e4m3fn", 1, 'x', DType::F64, false},
    {"Float8_e5m2Storage", "float8_e5m2", 1, 'x', DType::F64, false},
    {"Float8_e4m3fnuzStorage", "float8_e4m3fnuz", 1, 'x', DType::F64, false},
    {"Float8_e5m2fnuzStorage", "float8_e5m2fnuz", 1, 'x', DType::F64, false},
};
/// The other spellings of the dtypes that may appear as values (torch.float, torch.half, …).
constexpr std::pair<const char*, int> kDTypeAliases[] = {{"float", 0}, {"double", 1}, {"half", 2}, {"long", 4},
                                                         {"int", 5},   {"short", 6},  {"int8", 7}, {"uint8", 8}};

enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Storage, Tensor };

struct Val {
  Kind kind = Kind::None;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int> items;  ///< a tuple's or list's values; a dict's keys and values in turn
  Global global = Global::OrderedDict;
  int type = -1;  ///< Global::Storage, Global::DType and a storage: the row of kTorchTypes
  int info = -1;  ///< a storage or a tensor: its row of Unpickler's infos (a storage's key and numel, or a tensor)
  bool ordered = false;  ///< a dict made by REDUCE of collections.OrderedDict (BUILD may set its state)
};

const char* opcode_name(unsigned char op) {
  switch (op) {
    case 'c':
      return "GLOBAL";
    case 0x93:
      return "STACK_GLOBAL";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x81:
      return "NEWOBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 'b':
      return "BUILD";
    case 'P':
      return "PERSID";
    case 0x82:
    case 0x83:
    case 0x84:
      return "EXT";
    default:
      return nullptr;
  }
}

class Unpickler {
 public:
  Unpickler(std::string_view pkl, const std::string& name, TorchZip& zip, const std::string& prefix)
      : p_(pkl), name_(name), zip_(zip), prefix_(prefix) {}

  /// Runs the opcodes to STOP; the index of the value left.
  int run() {
    while (true) {
      if (pos_ >= p_.size()) fail_truncated();
      op_at_ = pos_;
      const auto op = static_cast<unsigned char>(p_[pos_++]);
      switch (op) {
        case 0x80:
          take(1);
          break;  // PROTO
        case 0x95:
          take(8);
          break;     // FRAME: a hint for buffering
        case '.': {  // STOP
          if (stack_.size() != 1 || !marks_.empty()) fail_shape("STOP");
          return stack_.back();
        }
        case '(':  // MARK
          if (static_cast<long>(marks_.size()) >= kMaxPickleValues) {
            throw InvalidArgument(
                error_msg("{0}: data.pkl: more than the {1} values allowed", name_, kMaxPickleValues));
          }
          marks_.push_back(stack_.size());
          break;
        case '0':
          pop("POP");
          break;
        case '1':
          pop_mark("POP_MARK");
          break;
        case 'N':
          push(make(Kind::None));
          break;
        case 0x88:
        case 0x89: {  // NEWTRUE, NEWFALSE
          const int v = make(Kind::Bool);
          vals_[v].i = op == 0x88;
          push(v);
          break;
        }
        case 'K':
          push_int(uint_le(take(1)));
          break;  // BININT1
        case 'M':
          push_int(uint_le(take(2)));
          break;  // BININT2
        case 'J':
          push_int(static_cast<std::int32_t>(uint_le(take(4))));
          break;      // BININT
        case 0x8a: {  // LONG1
          const std::size_t n = static_cast<unsigned char>(take(1)[0]);
          if (n > 8) fail_op(op, "LONG1 wider than 8 bytes");
          const std::string_view b = take(n);
          std::uint64_t u = uint_le(b);
          if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80)) u |= ~std::uint64_t{0} << (8 * n);
          push_int(static_cast<std::int64_t>(u));
          break;
        }
        case 'G': {  // BINFLOAT, big-endian
          const std::string_view b = take(8);
          std::uint64_t u = 0;
          for (int k = 0; k < 8; ++k) u = (u << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(k)]);
          const int v = make(Kind::Float);
          std::memcpy(&vals_[v].f, &u, 8);
          push(v);
          break;
        }
        case 'X':
          push_str(take(checked_len(uint_le(take(4)))));
          break;  // BINUNICODE
        case 0x8c:
          push_str(take(static_cast<unsigned char>(take(1)[0])));
          break;  // SHORT_BINUNICODE
        case 0x8d:
          push_str(take(checked_len(uint_le(take(8)))));
          break;  // BINUNICODE8
        case 'B':
          push_str(take(checked_len(uint_le(take(4)))));
          break;  // BINBYTES (read as text)
        case 'C':
          push_str(take(static_cast<unsigned char>(take(1)[0])));
          break;  // SHORT_BINBYTES
        case ']':
          push(make(Kind::List));
          break;  // EMPTY_LIST
        case '}':
          push(make(Kind::Dict));
          break;  // EMPTY_DICT
        case ')':
          push(make(Kind::Tuple));
          break;     // EMPTY_TUPLE
        case 't': {  // TUPLE
          const int v = make(Kind::Tuple);
          vals_[v].items = pop_mark("TUPLE");
          push(v);
          break;
        }
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
          const std::size_t n = op - 0x84u;
          if (stack_.size() < above_mark() + n) fail_shape("TUPLE1/2/3");
          const int v = make(Kind::Tuple);
          vals_[v].items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
          stack_.resize(stack_.size() - n);
          push(v);
          break;
        }
        case 'q':
          memo(uint_le(take(1)));
          break;  // BINPUT
        case 'r':
          memo(uint_le(take(4)));
          break;  // LONG_BINPUT
        case 0x94:
          memo(memo_.size());
          break;  // MEMOIZE
        case 'h':
          get(uint_le(take(1)));
          break;  // BINGET
        case 'j':
          get(uint_le(take(4)));
          break;     // LONG_BINGET
        case 'a': {  // APPEND
          const int x = pop("APPEND");
          append(top("APPEND"), {x}, "APPEND");
          break;
        }
        case 'e': {  // APPENDS
          const std::vector<int> xs = pop_mark("APPENDS");
          append(top("APPENDS"), xs, "APPENDS");
          break;
        }
        case 's': {  // SETITEM
          const int v = pop("SETITEM"), k = pop("SETITEM");
          append(top("SETITEM"), {k, v}, "SETITEM");
          break;
        }
        case 'u': {  // SETITEMS
          const std::vector<int> kv = pop_mark("SETITEMS");
          if (kv.size() % 2) fail_shape("SETITEMS");
          append(top("SETITEMS"), kv, "SETITEMS");
          break;
        }
        case 'c': {  // GLOBAL: "module\nname\n"
          const std::string module = line(), attr = line();
          push(global(module, attr));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          const int attr = pop("STACK_GLOBAL"), module = pop("STACK_GLOBAL");
          if (vals_[attr].kind != Kind::Str || vals_[module].kind != Kind::Str) fail_shape("STACK_GLOBAL");
          push(global(vals_[module].s, vals_[attr].s));
          break;
        }
        case 'Q':
          push(persistent(pop("BINPERSID")));
          break;     // BINPERSID
        case 'R': {  // REDUCE
          const int args = pop("REDUCE"), callable = pop("REDUCE");
          push(reduce(callable, args));
          break;
        }
        case 'b': {  // BUILD: only an OrderedDict's state, a dict (a state_dict's _metadata), kept out of its items
          const int state = pop("BUILD");
          if (!val(top("BUILD")).ordered || val(state).kind != Kind::Dict) refuse_opcode(op);
          break;
        }
        default:
          refuse_opcode(op);
      }
    }
  }

  const Val& val(int v) const { return vals_[static_cast<std::size_t>(v)]; }
  const TorchTensorInfo& info(int i) const { return infos_[static_cast<std::size_t>(i)]; }

 private:
  [[noreturn]] void refuse_opcode(unsigned char op) const {
    const char* known = opcode_name(op);
    const std::string shown =
        known ? fmt::format("{} (0x{:02x})", known, unsigned(op)) : fmt::format("0x{:02x}", unsigned(op));
    throw InvalidArgument(
        error_msg("{0}: data.pkl byte {1}: opcode {2} is outside the subset torch.save writes for tensors "
                  "(refused before anything is built from it)",
                  name_, op_at_, shown));
  }
  [[noreturn]] void fail_truncated() const {
    throw InvalidArgument(error_msg("{0}: data.pkl byte {1}: the pickle ends inside an opcode", name_, pos_));
  }
  [[noreturn]] void fail_shape(const char* what) const {
    throw InvalidArgument(
        error_msg("{0}: data.pkl byte {1}: {2} finds no values it can use (a malformed pickle)", name_, op_at_, what));
  }
  [[noreturn]] void fail_op(unsigned char, const char* what) const { fail_shape(what); }

  std::string_view take(std::size_t n) {
    if (n > p_.size() - pos_) fail_truncated();
    const std::string_view s = p_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  static std::uint64_t uint_le(std::string_view b) {
    std::uint64_t u = 0;
    for (std::size_t k = b.size(); k-- > 0;) u = (u << 8) | static_cast<unsigned char>(b[k]);
    return u;
  }
  std::size_t checked_len(std::uint64_t n) const {
    if (n > p_.size() - pos_) fail_truncated();  // checked before anything is allocated for it
    return static_cast<std::size_t>(n);
  }
  std::string line() {
    const std::size_t end = p_.find('\n', pos_);
    if (end == std::string_view::npos || end - pos_ > 256) fail_truncated();
    std::string s(p_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  int make(Kind k) {
    if (static_cast<long>(vals_.size()) >= kMaxPickleValues) {
      throw InvalidArgument(error_msg("{0}: data.pkl: more than the {1} values allowed", name_, kMaxPickleValues));
    }
    vals_.emplace_back();
    vals_.back().kind = k;
    return static_cast<int>(vals_.size() - 1);
  }
  void push(int v) {
    if (static_cast<long>(stack_.size()) >= kMaxPickleValues) {
      throw InvalidArgument(error_msg("{0}: data.pkl: more than the {1} values allowed", name_, kMaxPickleValues));
    }
    stack_.push_back(v);
  }
  void push_int(std::int64_t i) {
    const int v = make(Kind::Int);
    vals_[static_cast<std::size_t>(v)].i = i;
    push(v);
  }
  void push_str(std::string_view s) {
    const int v = make(Kind::Str);
    vals_[static_cast<std::size_t>(v)].s = std::string(s);
    push(v);
  }
  std::size_t above_mark() const { return marks_.empty() ? 0 : marks_.back(); }
  int pop(const char* what) {
    if (stack_.size() <= above_mark()) fail_shape(what);
    const int v = stack_.back();
    stack_.pop_back();
    return v;
  }
  int top(const char* what) const {
    if (stack_.size() <= above_mark()) fail_shape(what);
    return stack_.back();
  }
  std::vector<int> pop_mark(const char* what) {
    if (marks_.empty()) fail_shape(what);
    const std::size_t m = marks_.back();
    marks_.pop_back();
    std::vector<int> out(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return out;
  }
  void memo(std::uint64_t index) {
    if (static_cast<long>(memo_.size()) >= kMaxPickleValues && !memo_.count(index)) {
      throw InvalidArgument(error_msg("{0}: data.pkl: more than the {1} values allowed", name_, kMaxPickleValues));
    }
    memo_[index] = top("BINPUT");
  }
  void get(std::uint64_t index) {
    const auto it = memo_.find(index);
    if (it == memo_.end()) {
      throw InvalidArgument(error_msg("{0}: data.pkl byte {1}: memo entry {2} was never stored", name_, op_at_, index));
    }
    push(it->second);
  }
  void append(int container, const std::vector<int>& xs, const char* what) {
    Val& c = vals_[static_cast<std::size_t>(container)];
    const bool list = what[0] == 'A';
    if ((list && c.kind != Kind::List) || (!list && c.kind != Kind::Dict)) fail_shape(what);
    c.items.insert(c.items.end(), xs.begin(), xs.end());
  }

  [[noreturn]] void refuse_global(const std::string& module, const std::string& attr) const {
    throw InvalidArgument(
        error_msg("{0}: data.pkl byte {1}: refuses to run `{2}` named in data.pkl (rope reads "
                  "tensors, storages, dicts, lists and tuples, and runs nothing)",
                  name_, op_at_, escape_controls(module + "." + attr, kQuotedBytes)));
  }
  int global(const std::string& module, const std::string& attr) {
    const int v = make(Kind::Global);
    Val& g = vals_[static_cast<std::size_t>(v)];
    if (module == "collections" && attr == "OrderedDict") {
      g.global = Global::OrderedDict;
    } else if (module == "torch._utils" && attr == "_rebuild_tensor_v2") {
      g.global = Global::RebuildTensor;
    } else if (module == "torch._utils" && attr == "_rebuild_parameter") {
      g.global = Global::RebuildParameter;
    } else if (module == "torch") {
      for (std::size_t t = 0; t < std::size(kTorchTypes); ++t) {
        if (attr == kTorchTypes[t].storage) g.global = Global::Storage, g.type = static_cast<int>(t);
        if (attr == kTorchTypes[t].dtype) g.global = Global::DType, g.type = static_cast<int>(t);
      }
      for (const auto& [alias, t] : kDTypeAliases) {
        if (attr == alias) g.global = Global::DType, g.type = t;
      }
      if (g.type < 0) refuse_global(module, attr);
    } else {
      refuse_global(module, attr);
    }
    return v;
  }

  /// ('storage', torch.<Type>Storage, key, location, numel): the record data/KEY, checked to hold numel elements.
  int persistent(int pid) {
    const Val t = vals_[static_cast<std::size_t>(pid)];  // copies: make() below may move the values
    if (t.kind != Kind::Tuple || t.items.size() != 5) fail_shape("BINPERSID");
    const Val tag = val(t.items[0]);
    const Val type = val(t.items[1]);
    const Val key = val(t.items[2]);
    const Val numel = val(t.items[4]);
    if (tag.kind != Kind::Str || tag.s != "storage" || type.kind != Kind::Global || type.global != Global::Storage ||
        (key.kind != Kind::Str && key.kind != Kind::Int) || numel.kind != Kind::Int || numel.i < 0) {
      fail_shape("BINPERSID");
    }
    const std::string k = key.kind == Kind::Str ? key.s : std::to_string(key.i);
    const TorchType& tt = kTorchTypes[type.type];
    const std::string record = prefix_ + "data/" + k;
    const ZipRecord* rec = zip_.find(record);
    if (!rec) {
      throw InvalidArgument(error_msg("{0}: data.pkl byte {1}: storage '{2}' has no record {3} in the archive", name_,
                                      op_at_, escape_controls(k, kQuotedBytes), escape_controls(record, kQuotedBytes)));
    }
    const auto need = static_cast<std::uint64_t>(numel.i);
    if (need > rec->size / static_cast<std::uint64_t>(tt.bytes)) {
      throw InvalidArgument(
          error_msg("{0}: storage '{1}': data.pkl says {2} elements of {3} bytes, and its record holds {4} bytes",
                    name_, escape_controls(k, kQuotedBytes), numel.i, tt.bytes, rec->size));
    }
    const int v = make(Kind::Storage);
    Val& s = vals_[static_cast<std::size_t>(v)];
    s.type = type.type;
    s.info = static_cast<int>(infos_.size());
    infos_.emplace_back();
    infos_.back().storage_key = k;
    infos_.back().storage_numel = static_cast<long>(numel.i);
    return v;
  }

  std::vector<long> longs(const Val& tuple, const char* what) const {
    if (tuple.kind == Kind::Tuple && tuple.items.size() > static_cast<std::size_t>(kMaxTorchListedRank)) {
      throw InvalidArgument(error_msg("{0}: {1}: rank {2} is above the limit of {3}", name_,
                                      fmt::format("data.pkl byte {} ({})", op_at_, what), tuple.items.size(),
                                      kMaxTorchListedRank));
    }
    if (tuple.kind != Kind::Tuple) fail_args(what);
    std::vector<long> out;
    for (const int x : tuple.items) {
      const Val& e = val(x);
      if (e.kind != Kind::Int || e.i < 0 || e.i > (std::int64_t{1} << 50)) fail_args(what);
      out.push_back(static_cast<long>(e.i));
    }
    return out;
  }
  [[noreturn]] void fail_args(const char* what) const {
    throw InvalidArgument(error_msg("{0}: data.pkl byte {1}: the arguments of {2} are not the ones torch.save writes",
                                    name_, op_at_, what));
  }

  int reduce(int callable, int args) {
    const Val f = val(callable);  // copies: make() below may move the values
    const Val a = val(args);
    if (f.kind != Kind::Global || a.kind != Kind::Tuple) fail_shape("REDUCE");
    if (f.global == Global::OrderedDict) {
      if (!a.items.empty()) fail_args("collections.OrderedDict");
      const int d = make(Kind::Dict);
      vals_[static_cast<std::size_t>(d)].ordered = true;
      return d;
    }
    if (f.global == Global::RebuildParameter) {  // (tensor, requires_grad, backward_hooks)
      if (a.items.size() != 3 || val(a.items[0]).kind != Kind::Tensor) fail_args("torch._utils._rebuild_parameter");
      return a.items[0];
    }
    if (f.global != Global::RebuildTensor) fail_shape("REDUCE");
    // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
    const char* what = "torch._utils._rebuild_tensor_v2";
    if (a.items.size() != 6 && a.items.size() != 7) fail_args(what);
    const Val storage = val(a.items[0]);
    const Val offset = val(a.items[1]);
    const Val size = val(a.items[2]), stride = val(a.items[3]);
    if (storage.kind != Kind::Storage || offset.kind != Kind::Int || offset.i < 0) fail_args(what);
    const int v = make(Kind::Tensor);
    vals_[static_cast<std::size_t>(v)].info = static_cast<int>(infos_.size());
    infos_.push_back(infos_[static_cast<std::size_t>(storage.info)]);
    TorchTensorInfo& info = infos_.back();
    const TorchType& tt = kTorchTypes[storage.type];
    info.stored = tt.dtype;
    info.dtype = tt.value;
    info.bytes = tt.bytes;
    info.kind = tt.kind;
    info.offset = static_cast<long>(offset.i);
    info.shape = longs(size, what);
    info.strides = longs(stride, what);
    if (info.shape.size() != info.strides.size()) fail_args(what);
    // The view's last element, checked against the storage before anything is read (sizes and strides are
    // below 2^50 each, the sum is bounded by checking each term).
    std::uint64_t last = static_cast<std::uint64_t>(offset.i);
    bool empty = false;
    for (std::size_t k = 0; k < info.shape.size(); ++k) {
      if (info.shape[k] == 0) empty = true;
      const auto steps = static_cast<std::uint64_t>(info.shape[k] > 0 ? info.shape[k] - 1 : 0);
      const auto stride = static_cast<std::uint64_t>(info.strides[k]);
      const auto numel = static_cast<std::uint64_t>(info.storage_numel);
      if (stride != 0 && steps > numel / stride) {
        last = ~std::uint64_t{0};  // past the storage, whatever the other terms
      } else if (last != ~std::uint64_t{0}) {
        last = last + steps * stride > numel ? ~std::uint64_t{0} : last + steps * stride;
      }
    }
    if (!empty && last >= static_cast<std::uint64_t>(info.storage_numel)) {
      throw InvalidArgument(error_msg(
          "{0}: data.pkl byte {1}: a view of shape {2}, strides {3} at offset {4} reaches past its storage '{5}' "
          "of {6} elements",
          name_, op_at_, shape_string(info.shape), shape_string(info.strides), offset.i,
          escape_controls(info.storage_key, kQuotedBytes), info.storage_numel));
    }
    return v;
  }

  std::string_view p_;
  std::string name_;
  TorchZip& zip_;
  std::string prefix_;
  std::size_t pos_ = 0, op_at_ = 0;
  std::vector<Val> vals_;
  std::vector<TorchTensorInfo> infos_;  ///< one per storage and tensor value
  std::vector<int> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, int> memo_;
};

/// A dict key as Python writes it, for a message: 1.5, None, True, a tuple.
std::string key_text(const Val& key) {
  switch (key.kind) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return key.i ? "True" : "False";
    case Kind::Float:
      return fmt::format("{}", key.f);
    case Kind::Tuple:
      return "a tuple";
    default:
      return "an object";
  }
}

/// The tensors under `v`, named by their keys joined with dots. Bounded: nesting, visits, cycles. A name must say
/// one tensor: two that join to one name ({'a.b': x, 'a': {'b': y}}) are refused naming both paths, as is a tensor
/// under a key that is neither a str nor an int (1.5, None: no name to type).
class Flattener {
 public:
  Flattener(const Unpickler& u, const std::string& name) : u_(u), name_(name) {}
  std::vector<TorchTensorInfo> out;

  void walk(int root) {
    walk(root, "", "", 0);
    std::unordered_map<std::string_view, std::size_t> first;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (first.emplace(out[i].name, i).second) continue;
      // Walked again for the two paths of that name alone (Python's subscripts, bounded by the name's limit).
      want_ = out[i].name;
      visits_ = 0;
      walk(root, "", "", 0);
      throw InvalidArgument(error_msg("{0}: two tensors are named '{1}', at {2} and at {3}: a name must say one tensor",
                                      name_, escape_controls(out[i].name, kQuotedBytes), subscripts_.at(0),
                                      subscripts_.at(1)));
    }
  }

 private:
  void walk(int v, const std::string& path, const std::string& subscript, int depth) {
    if (depth > kMaxPickleDepth) {
      throw InvalidArgument(
          error_msg("{0}: data.pkl: dicts, lists and tuples nested deeper than {1}", name_, kMaxPickleDepth));
    }
    if (++visits_ > kMaxPickleValues) {
      throw InvalidArgument(error_msg("{0}: data.pkl: more than the {1} values allowed", name_, kMaxPickleValues));
    }
    const Val& x = u_.val(v);
    if (x.kind == Kind::Tensor) {
      if (static_cast<long>(out.size()) >= kMaxTorchTensors) {
        throw InvalidArgument(error_msg("{0}: more than the {1} tensors allowed", name_, kMaxTorchTensors));
      }
      if (want_) {
        if (path == *want_) subscripts_.push_back(subscript);
        return;
      }
      out.push_back(u_.info(x.info));
      out.back().name = path;
      return;
    }
    if (x.kind != Kind::List && x.kind != Kind::Tuple && x.kind != Kind::Dict) return;
    if (on_path_.count(v)) {
      throw InvalidArgument(error_msg("{0}: data.pkl: a container holds itself (a cycle)", name_));
    }
    on_path_.insert({v, true});
    const auto join = [&](const std::string& key) {
      if (path.size() + key.size() + 1 > kMaxTorchNameBytes) {
        throw InvalidArgument(
            error_msg("{0}: data.pkl: a tensor's name is longer than {1} bytes", name_, kMaxTorchNameBytes));
      }
      return path.empty() ? key : path + "." + key;
    };
    if (x.kind == Kind::Dict) {
      for (std::size_t k = 0; k + 1 < x.items.size(); k += 2) {
        const Val& key = u_.val(x.items[k]);
        const Kind held = u_.val(x.items[k + 1]).kind;
        if (key.kind != Kind::Str && key.kind != Kind::Int) {
          if (held != Kind::Tensor && held != Kind::Dict && held != Kind::List && held != Kind::Tuple) continue;
          if (path.empty()) {
            throw InvalidArgument(error_msg(
                "{0}: data.pkl: a tensor lies under the key {1}: rope names tensors by their str and int keys", name_,
                key_text(key)));
          }
          throw InvalidArgument(error_msg(
              "{0}: data.pkl: a tensor lies under the key {1} in '{2}': rope names tensors by their str and int keys",
              name_, key_text(key), escape_controls(path, kQuotedBytes)));
        }
        const std::string ks = key.kind == Kind::Str ? key.s : std::to_string(key.i);
        const std::string sub = !want_ ? std::string()
                                : key.kind == Kind::Str
                                    ? fmt::format("{}['{}']", subscript, escape_controls(key.s, kQuotedBytes))
                                    : fmt::format("{}[{}]", subscript, key.i);
        walk(x.items[k + 1], join(ks), sub, depth + 1);
      }
    } else {
      for (std::size_t k = 0; k < x.items.size(); ++k)
        walk(x.items[k], join(std::to_string(k)), want_ ? fmt::format("{}[{}]", subscript, k) : "", depth + 1);
    }
    on_path_.erase(v);
  }

  std::optional<std::string> want_;      ///< the second walk: the name whose paths are wanted
  std::vector<std::string> subscripts_;  ///< those paths as Python reaches them: ['a']['b'], [0]
  const Unpickler& u_;
  std::string name_;
  long visits_ = 0;
  std::unordered_map<int, bool> on_path_;
};

}  // namespace

struct TorchArchive::State {
  ZipBytes source;
  std::unique_ptr<TorchZip> zip;
  std::string name;
  std::string prefix;
  bool big_endian = false;
  std::vector<TorchTensorInfo> tensors;
};

namespace {

void open_torch(TorchArchive::State& o) {
  detail::count_tensor_directory_read();
  o.zip = std::make_unique<TorchZip>(o.source, o.name);
  const std::string& name = o.name;
  std::string pkl;
  int found = 0;
  for (const auto& [record, rec] : o.zip->records()) {
    const std::size_t slash = record.find('/');
    if (slash != std::string::npos && record.compare(slash, std::string::npos, "/data.pkl") == 0) {
      ++found;
      pkl = record;
      o.prefix = record.substr(0, slash + 1);
    }
  }
  if (found != 1) {
    throw InvalidArgument(found == 0 ? error_msg("{0}: the archive holds no data.pkl (not written by torch.save)", name)
                                     : error_msg("{0}: the archive holds {1} data.pkl records", name, found));
  }
  std::vector<unsigned char> buffer;
  if (const ZipRecord* order = o.zip->find(o.prefix + "byteorder")) {
    const std::string_view text =
        o.zip->read(o.prefix + "byteorder", 0, std::min<std::uint64_t>(order->size, 16), buffer);
    if (text != "little" && text != "big") {
      throw InvalidArgument(
          error_msg("{0}: byteorder is '{1}', not 'little' or 'big'", name, escape_controls(text, kQuotedBytes)));
    }
    o.big_endian = text == "big";
  }
  const ZipRecord* rec = o.zip->find(pkl);
  if (rec->size > kMaxPickleBytes) {
    throw InvalidArgument(error_msg("{0}: record {1} is {2} bytes, above the limit of {3}", name,
                                    escape_controls(pkl, kQuotedBytes), rec->size, kMaxPickleBytes));
  }
  std::vector<unsigned char> pkl_buffer;
  const std::string_view text = o.zip->read(pkl, 0, rec->size, pkl_buffer);
  Unpickler u(text, name, *o.zip, o.prefix);
  const int root = u.run();
  Flattener f(u, name);
  f.walk(root);
  o.tensors = std::move(f.out);
}

[[noreturn]] void refuse_legacy(const std::string& name) {
  throw InvalidArgument(
      error_msg("{0}: not a zip archive: torch.save's legacy format (PyTorch before 1.6, or "
                "_use_new_zipfile_serialization=False) is not read; load it in PyTorch and torch.save it again",
                name));
}

}  // namespace

bool is_zip_archive(std::string_view bytes) { return bytes.size() >= 4 && bytes.substr(0, 4) == "PK\x03\x04"; }

bool is_zip_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  unsigned char magic[4] = {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const long long got = regular ? pread_full(fd, magic, sizeof magic, 0) : -1;
  ::close(fd);
  return got == 4 && is_zip_archive({reinterpret_cast<const char*>(magic), 4});
}

TorchArchive TorchArchive::in_memory(std::string_view bytes, const std::string& name) {
  if (!is_zip_archive(bytes)) refuse_legacy(name);
  TorchArchive a;
  a.state_ = std::make_unique<State>();
  a.state_->source.bytes = bytes;
  a.state_->source.size = bytes.size();
  a.state_->name = name;
  open_torch(*a.state_);
  return a;
}

TorchArchive TorchArchive::open(const std::string& path) { return open(path, escape_controls(path, kQuotedBytes)); }

TorchArchive TorchArchive::open(const std::string& path, const std::string& name) {
  TorchArchive a;
  a.state_ = std::make_unique<State>();
  State& s = *a.state_;
  s.name = name;
  a.fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (a.fd_ < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name, std::strerror(errno)));
  note_input_file(a.fd_);
  struct stat st {};
  if (::fstat(a.fd_, &st) != 0)
    throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) {
    throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name,
                            "not a regular file (a FIFO, device or socket is not read)"));
  }
  s.source.fd = a.fd_;
  s.source.size = static_cast<std::uint64_t>(st.st_size);
  unsigned char magic[4] = {};
  const long long got = pread_full(a.fd_, magic, sizeof magic, 0);
  if (got < 0) throw IoError(error_msg("cannot read tensor file '{0}': {1}", s.name, std::strerror(errno)));
  if (!is_zip_archive({reinterpret_cast<const char*>(magic), static_cast<std::size_t>(got)})) refuse_legacy(s.name);
  open_torch(s);
  return a;
}

TorchArchive::TorchArchive() = default;
TorchArchive::TorchArchive(TorchArchive&& other) noexcept : state_(std::move(other.state_)), fd_(other.fd_) {
  other.fd_ = -1;
}
TorchArchive& TorchArchive::operator=(TorchArchive&& other) noexcept {
  if (this != &other) {
    state_.reset();
    if (fd_ >= 0) ::close(fd_);
    state_ = std::move(other.state_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}
TorchArchive::~TorchArchive() {
  state_.reset();  // minizip's handle first, then the file it reads
  if (fd_ >= 0) ::close(fd_);
}

const std::vector<TorchTensorInfo>& TorchArchive::tensors() const { return state_->tensors; }

const std::string& TorchArchive::name() const { return state_->name; }

TensorData TorchArchive::read(const TensorReadOptions& options) const {
  State& o = *state_;
  const std::string& name = o.name;
  const auto names = [&] {
    std::string list;
    for (std::size_t i = 0; i < o.tensors.size() && i < 8; ++i)
      list += (i ? ", " : "") + escape_controls(o.tensors[i].name, kQuotedBytes);
    return o.tensors.size() > 8 ? list + ", …" : list;
  };
  if (o.tensors.empty()) throw InvalidArgument(error_msg("{0}: holds no tensor", name));
  const TorchTensorInfo* t = nullptr;
  if (options.tensor.empty()) {
    if (o.tensors.size() != 1) {
      throw InvalidArgument(error_msg("{0}: holds {1} tensors ({2}): name one with {3}", name, o.tensors.size(),
                                      names(), option_name("tensor")));
    }
    t = &o.tensors.front();
  } else {
    for (const TorchTensorInfo& x : o.tensors) {
      if (x.name == options.tensor) t = &x;
    }
    if (!t) {
      throw InvalidArgument(error_msg("{0}: no tensor named '{1}' (it holds {2})", name,
                                      escape_controls(options.tensor, kQuotedBytes), names()));
    }
  }
  const std::string field = "tensor '" + escape_controls(t->name, kQuotedBytes) + "'";
  if (t->shape.size() > static_cast<std::size_t>(kMaxTensorRank)) {  // listed, not read
    throw InvalidArgument(
        error_msg("{0}: {1}: rank {2} is above the limit of {3}", name, field, t->shape.size(), kMaxTensorRank));
  }
  if (t->kind == 'x') {
    throw InvalidArgument(error_msg(
        "{0}: {1} holds {2}: rope reads float32, float64, float16 and bfloat16 tensors (integers as positions)", name,
        field, t->stored));
  }
  if (t->kind == 'i' || t->kind == 'u') {
    if (!options.integers) {
      throw InvalidArgument(
          error_msg("{0}: {1} holds {2}: integers are read as positions only", name, field, t->stored));
    }
  }
  const long count = detail::checked_element_count(t->shape.empty() ? std::vector<long>{1} : t->shape, name,
                                                   field + " shape", kMaxTensorElements);
  // The storage's elements from the view's first to its last (checked against the record when data.pkl was read):
  // only they are read, by pread where the record is stored.
  std::uint64_t first = static_cast<std::uint64_t>(t->offset), last = first;
  for (std::size_t k = 0; k < t->shape.size(); ++k) {
    const auto span = static_cast<std::uint64_t>(t->shape[k] - 1) * static_cast<std::uint64_t>(t->strides[k]);
    last += span;
  }
  const auto bytes = static_cast<std::uint64_t>(t->bytes);
  const std::uint64_t need = (last + 1 - first) * bytes;
  if (need > kMaxTensorFileBytes) {
    throw InvalidArgument(error_msg("{0}: {1} spans {2} bytes of its storage, above the limit of {3}", name, field,
                                    need, kMaxTensorFileBytes));
  }
  std::vector<unsigned char> buffer;
  const std::string_view storage = o.zip->read(o.prefix + "data/" + t->storage_key, first * bytes, need, buffer);
  // Gather the view in C order into contiguous raw elements, then decode them as the other readers do.
  std::vector<unsigned char> raw(static_cast<std::size_t>(count) * static_cast<std::size_t>(t->bytes));
  const std::size_t rank = t->shape.size();
  std::vector<long> index(rank, 0);
  for (long e = 0; e < count; ++e) {
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < rank; ++k)
      at += static_cast<std::uint64_t>(index[k]) * static_cast<std::uint64_t>(t->strides[k]);
    std::memcpy(raw.data() + static_cast<std::size_t>(e) * static_cast<std::size_t>(t->bytes),
                storage.data() + at * bytes, static_cast<std::size_t>(t->bytes));
    for (std::size_t k = rank; k-- > 0;) {
      if (++index[k] < t->shape[k]) break;
      index[k] = 0;
    }
  }
  buffer = {};  // the storage's bytes are no longer needed while the values are decoded
  TensorData out;
  out.shape = t->shape.empty() ? std::vector<long>{1} : t->shape;
  out.dtype = t->dtype;
  out.stored = t->stored;
  detail::decode_values(raw.data(), count, t->bytes, t->kind, o.big_endian, t->dtype, out.values);
  return out;
}

std::vector<TorchTensorInfo> list_torch_tensors(std::string_view bytes, const std::string& name) {
  return TorchArchive::in_memory(bytes, name).tensors();
}

TensorData parse_torch(std::string_view bytes, const std::string& name, const TensorReadOptions& options) {
  return TorchArchive::in_memory(bytes, name).read(options);
}

}  // namespace rope
