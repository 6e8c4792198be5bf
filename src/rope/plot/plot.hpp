/// @file
/// Figures, in one include for the commands. A Figure describes what to draw (rope/plot/figure.hpp);
/// gnuplot_script() turns it into a gnuplot script with the data inline (rope/plot/script.hpp, every
/// user text through quote(), rope/plot/text.hpp; log-axis ticks from rope/plot/ticks.hpp); render()
/// writes that script to a private temporary file and runs gnuplot on it as a separate process
/// (rope/plot/render.hpp).
#pragma once

#include "rope/plot/animation.hpp"
#include "rope/plot/figure.hpp"
#include "rope/plot/render.hpp"
#include "rope/plot/script.hpp"
#include "rope/plot/text.hpp"
#include "rope/plot/ticks.hpp"
