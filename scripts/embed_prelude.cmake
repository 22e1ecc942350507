# Writes a C++ file holding every prelude/*.fut as a raw string, so the
# binary needs no files at run time.
file(GLOB files ${DIR}/*.fut)
list(SORT files)
set(body "#include <string_view>\n#include <utility>\n#include <vector>\nnamespace thorn {\nextern const std::vector<std::pair<std::string_view, std::string_view>> kPreludeSources = {\n")
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  string(APPEND body "  {\"${name}\", R\"thornprelude(${text})thornprelude\"},\n")
endforeach()
string(APPEND body "};\n}\n")
file(WRITE ${OUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
