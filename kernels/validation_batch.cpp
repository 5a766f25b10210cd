// Batch family validation. Placeholder until the Batch variants land: reports "not run".
#include "kernels/validation.hpp"

namespace ps {

void validate_batch_self(const Problem&, RunResult& result) {
    result.validation = Validation::NotRun;
    result.validation_message = "batch validation not implemented yet";
}

void validate_batch_against_reference(const Problem&, RunResult& result, const RunResult&) {
    result.validation = Validation::NotRun;
    result.validation_message = "batch validation not implemented yet";
}

}  // namespace ps
