// Registers the flow-field variants (flowfield.cpu, the reference, and flowfield.gpu).
#pragma once

#include "kernels/run/variant.hpp"

namespace ps {

void add_flowfield_variants(Registry& registry);

}  // namespace ps
