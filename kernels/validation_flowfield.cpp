// FlowField family validation. Placeholder until the FlowField variants land: reports "not run".
#include "kernels/validation.hpp"

namespace ps {

void validate_flowfield_self(const Problem&, RunResult& result) {
    result.validation = Validation::NotRun;
    result.validation_message = "flowfield validation not implemented yet";
}

void validate_flowfield_against_reference(const Problem&, RunResult& result, const RunResult&) {
    result.validation = Validation::NotRun;
    result.validation_message = "flowfield validation not implemented yet";
}

}  // namespace ps
