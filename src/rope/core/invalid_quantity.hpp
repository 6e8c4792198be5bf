/// @file
/// An InvalidArgument about one named input quantity. The library names the quantity in its own words
/// ("sequence length", "θ", "query q"), never an option of a front end; a front end that knows which of
/// its options set the quantity can name the option instead (the command line does: docs/errors.md).
#pragma once

#include <string>
#include <utility>

#include "rope/core/error.hpp"

namespace rope {

class InvalidQuantity : public InvalidArgument {
 public:
  /// The message is "<quantity> <rule>", e.g. "sequence length must be between 1 and 4096 (got 0)".
  InvalidQuantity(std::string quantity, std::string rule)
      : InvalidArgument(quantity + " " + rule), quantity_(std::move(quantity)), rule_(std::move(rule)) {}

  /// Which quantity was wrong: "sequence length".
  const std::string& quantity() const { return quantity_; }
  /// What was wrong with it: "must be between 1 and 4096 (got 0)".
  const std::string& rule() const { return rule_; }

 private:
  std::string quantity_;
  std::string rule_;
};

}  // namespace rope
