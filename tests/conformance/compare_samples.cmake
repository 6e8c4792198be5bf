# conformance.gguf_samples: gguf-py writes data/gguf/'s samples again (write_gguf_samples.py); the committed
# files must be those bytes.
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${GGUF_PY} ${PYTHON} ${SCRIPT} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "write_gguf_samples.py failed (${rc})")
endif()
foreach(name llama-3.1-8b.gguf qwen3-vl-8b.gguf)
  file(SHA256 "${OUT}/${name}" written)
  file(SHA256 "${EXPECTED}/${name}" committed)
  if(NOT written STREQUAL committed)
    message(FATAL_ERROR "data/gguf/${name} is not what gguf-py writes (${OUT}/${name}): regenerate it (data/gguf/README.md)")
  endif()
  message(STATUS "data/gguf/${name}: the bytes gguf-py writes")
endforeach()
