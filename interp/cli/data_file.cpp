#include "interp/cli/data_file.hpp"

#include <zlib.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "interp/util/error.hpp"

namespace thorn::cli {

std::string read_data_file(const std::string& path) {
  bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (!gz) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorKind::Input, fmt::format("cannot read data file {}", path));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw Error(ErrorKind::Input, fmt::format("cannot read data file {}", path));
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  int err = 0;
  const char* msg = gzerror(f, &err);
  std::string why = (n < 0 && msg) ? msg : "";
  gzclose(f);
  if (n < 0) throw Error(ErrorKind::Input, fmt::format("cannot decompress {}: {}", path, why));
  return out;
}

}  // namespace thorn::cli
