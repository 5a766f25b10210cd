// Factory for batch.cpu, the reference of every batch.* variant.
#pragma once

#include <memory>

#include "kernels/run/variant.hpp"

namespace ps {

std::unique_ptr<Variant> make_batch_cpu();

}  // namespace ps
