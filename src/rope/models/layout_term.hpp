/// @file
/// The pair layout's name inside a sentence (po/glossary.md): "interleaved" or "half" in English,
/// 相邻配对（interleaved） and 前后半配对（half） in Chinese (the catalog's entries of context "layout"), so that no
/// English layout word stands as a field of a Chinese sentence ("符合 interleaved 排列"). Defined in rope_spec.cpp.
#pragma once

#include "rope/core/message.hpp"
#include "rope/core/types.hpp"

namespace rope {

Message layout_term(Layout layout);

}  // namespace rope
