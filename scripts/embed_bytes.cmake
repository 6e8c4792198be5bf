# Embeds a binary file (the lesson's example dump data/dumps/q_spectrum.npy) into the program: writes a C++ source
# defining
#   extern const unsigned char <SYMBOL>[];  extern const std::size_t <SYMBOL>_size;
# holding the file's bytes. Run by the build (apps/CMakeLists.txt):
#   cmake -DIN=data/dumps/q_spectrum.npy -DOUT=q_spectrum_npy.cpp -DSYMBOL=kSpectrumDump -P scripts/embed_bytes.cmake
if(NOT DEFINED IN OR NOT DEFINED OUT OR NOT DEFINED SYMBOL)
  message(FATAL_ERROR "embed_bytes.cmake: IN, OUT and SYMBOL are required")
endif()
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by scripts/embed_bytes.cmake: do not edit.\n"
  "#include <cstddef>\n"
  "namespace rope::cli {\n"
  "extern const unsigned char ${SYMBOL}[];\n"
  "extern const std::size_t ${SYMBOL}_size;\n"
  "const unsigned char ${SYMBOL}[] = {\n${bytes}};\n"
  "const std::size_t ${SYMBOL}_size = ${size};\n"
  "}  // namespace rope::cli\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
