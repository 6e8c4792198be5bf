# Embeds a text file (the PO catalog; the lesson's docs/classroom*.md) into the program: writes a C++ source defining
#   extern const char <SYMBOL>[];  extern const std::size_t <SYMBOL>_size;
# holding the file's bytes as a raw string literal. Run by the build (apps/CMakeLists.txt):
#   cmake -DIN=po/zh_CN.po -DOUT=zh_CN_po.cpp -DSYMBOL=kZhCnPo -P scripts/embed_po.cmake
# The catalog is read at run time by rope::parse_po (src/rope/io/po_file.hpp); no locale or .mo file.
if(NOT DEFINED IN OR NOT DEFINED OUT OR NOT DEFINED SYMBOL)
  message(FATAL_ERROR "embed_po.cmake: IN, OUT and SYMBOL are required")
endif()
file(READ "${IN}" content)
string(FIND "${content}" ")rope_po\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "embed_po.cmake: ${IN} holds the raw-string delimiter ')rope_po\"'")
endif()
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by scripts/embed_po.cmake: do not edit.\n"
  "#include <cstddef>\n"
  "namespace rope::cli {\n"
  "extern const char ${SYMBOL}[];\n"
  "extern const std::size_t ${SYMBOL}_size;\n"
  "const char ${SYMBOL}[] = R\"rope_po(${content})rope_po\";\n"
  "const std::size_t ${SYMBOL}_size = sizeof(${SYMBOL}) - 1;\n"
  "}  // namespace rope::cli\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
