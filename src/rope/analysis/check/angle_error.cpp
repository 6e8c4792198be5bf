#include "rope/analysis/check/angle_error.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"

namespace rope {

std::string_view to_string(AngleModel model) {
  switch (model) {
    case AngleModel::Float64:
      return "float64";
    case AngleModel::Float32:
      return "float32";
    case AngleModel::Ggml:
      return "ggml";
  }
  return "?";
}

AngleModel parse_angle_model(std::string_view name) {
  for (const AngleModel m : {AngleModel::Float64, AngleModel::Float32, AngleModel::Ggml}) {
    if (to_string(m) == name) return m;
  }
  throw InvalidArgument(
      error_msg("'{0}' is not an error model of the angles: float64, float32 or ggml", std::string(name)));
}

AngleModel default_angle_model(DType dump) { return dump == DType::F64 ? AngleModel::Float64 : AngleModel::Float32; }

double angle_epsilon(AngleModel model) {
  return model == AngleModel::Float64 ? epsilon(DType::F64) : epsilon(DType::F32);
}

namespace {
/// The per-product growth of ggml's ladder, in ε: 1.5 + ln(base)/r (the header's derivation).
double ladder_step(double base, int rotary_dim) {
  if (!(base > 0) || !std::isfinite(base) || rotary_dim < 2) {
    throw InvalidArgument(
        error_msg("ggml's angle error needs a positive base and a rotary dimension of at least 2 (got {0}, {1})", base,
                  rotary_dim));
  }
  return 1.5 + std::abs(std::log(base)) / rotary_dim;
}
}  // namespace

Eigen::VectorXd angle_error_factors(AngleModel model, const Eigen::VectorXd& theta, double base, int rotary_dim) {
  Eigen::VectorXd c(theta.size());
  switch (model) {
    case AngleModel::Float64:
      c.setOnes();
      break;
    case AngleModel::Float32:
      for (Eigen::Index i = 0; i < theta.size(); ++i) {
        c[i] = 1.5 + (theta[i] > 0 ? std::abs(std::log(theta[i])) / 2 : 0.0);
      }
      break;
    case AngleModel::Ggml: {
      const double step = ladder_step(base, rotary_dim);
      for (Eigen::Index i = 0; i < theta.size(); ++i) c[i] = 2.0 + static_cast<double>(i) * step;
      break;
    }
  }
  return c;
}

std::string angle_error_formula(AngleModel model, double base, int rotary_dim) {
  switch (model) {
    case AngleModel::Float64:
      return "1";
    case AngleModel::Float32:
      return "1.5 + |ln θ_i|/2";
    case AngleModel::Ggml:
      return fmt::format("2 + i·(1.5 + ln(base)/r) = 2 + {:.3g}·i", ladder_step(base, rotary_dim));
  }
  return "?";
}

}  // namespace rope
