/// @file
/// A message of a catalog context other than "error" (core/message.hpp's error_msg): a word the catalog translates
/// otherwise elsewhere, as the layout's name "interleaved" (context "layout", models/layout_term.hpp) against
/// M-RoPE's 交错. `make pot` (scripts/pot.sh) extracts its id into its context (keyword msgc, the context first, like
/// Text::trc), so that catalog.complete fails when po/zh_CN.po lacks it.
#pragma once

#include <string>
#include <utility>

#include "rope/core/message.hpp"

namespace rope {

template <class... Args>
Message msgc(std::string context, std::string id, Args&&... args) {
  Message m = msg(std::move(id), std::forward<Args>(args)...);
  m.context = std::move(context);
  return m;
}

}  // namespace rope
