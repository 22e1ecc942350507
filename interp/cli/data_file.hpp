#pragma once
// Reading Futhark data files (the text or binary value format, gzipped or
// not): test inputs and outputs, benchmark datasets, FutharkScript's
// $loaddata.
#include <string>

namespace thorn::cli {

// The contents of a data file, gunzipped when it ends in .gz. Throws
// Error(ErrorKind::Input) when it cannot be read.
std::string read_data_file(const std::string& path);

}  // namespace thorn::cli
