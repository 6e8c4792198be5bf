// The live page's FoPE reader: the page has no file system (-sFILESYSTEM=0), so it opens no checkpoint. The
// library's reader (src/rope/analysis/check/fope_checkpoint.cpp, safetensors and its index through the weights
// reader) is left out of the page; the rules that decide whether coefficients are needed
// (fope_coefficients.cpp) are the library's own. The page's panels resolve no FoPE model, so this is never reached
// from them; a FoPE model given to one would be refused here, naming the commands that read the checkpoint.
#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/core/error.hpp"

namespace rope {

FopeCoefficients read_fope_coefficients(const std::string& path, const FopeConfig&, int) {
  throw IoError(
      error_msg("cannot read '{0}': the live page opens no file; rope check, diff, apply and matrix read "
                "FoPE's coefficients with --coefficients",
                path));
}

}  // namespace rope
