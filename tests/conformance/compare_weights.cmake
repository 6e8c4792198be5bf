# conformance.weights_samples: tests/reference/weights.py writes data/weights/ again with llama.cpp's own code
# (the converter's permute, gguf-py, ggml_quantize_chunk); the committed files must be those bytes.
execute_process(COMMAND ${CMAKE_COMMAND} -E env ROPE_LLAMA_DIR=${LLAMA_DIR} ${PYTHON} ${SCRIPT} ${OUT}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tests/reference/weights.py failed (${rc})")
endif()
file(GLOB_RECURSE written RELATIVE ${OUT} ${OUT}/*)
if(NOT written)
  message(FATAL_ERROR "tests/reference/weights.py wrote nothing into ${OUT}")
endif()
foreach(name IN LISTS written)
  file(SHA256 "${OUT}/${name}" new)
  file(SHA256 "${EXPECTED}/${name}" committed)
  if(NOT new STREQUAL committed)
    message(FATAL_ERROR "data/weights/${name} is not what llama.cpp's code writes (${OUT}/${name}): regenerate it "
                        "(data/weights/README.md)")
  endif()
endforeach()
message(STATUS "data/weights/: the bytes llama.cpp's code writes")
