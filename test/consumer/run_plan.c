/* Runs a plan through fusec's C API from plain C and checks the error path. */
#include <fusec/runtime_c.h>

#include <stdio.h>
#include <stdlib.h>

static size_t elements(const fusec_plan *plan, int input, size_t index, int64_t batch) {
  int64_t dims[16];
  size_t rank = input ? fusec_plan_input_shape(plan, index, dims, 16) : fusec_plan_output_shape(plan, index, dims, 16);
  size_t count = 1;
  for (size_t d = 0; d < rank; ++d)
    count *= (size_t)(dims[d] == FUSEC_BATCH_DIM ? batch : dims[d]);
  return count;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: consumer_c_api PLAN\n");
    return 2;
  }
  if (fusec_plan_load("/nonexistent.plan") != NULL || fusec_last_error()[0] == '\0') {
    fprintf(stderr, "consumer: a missing plan must fail with a message\n");
    return 1;
  }
  fusec_plan *plan = fusec_plan_load(argv[1]);
  if (!plan) {
    fprintf(stderr, "consumer: %s\n", fusec_last_error());
    return 1;
  }
  fusec_session *session = fusec_session_create(plan, "cpu");
  if (!session) {
    fprintf(stderr, "consumer: %s\n", fusec_last_error());
    return 1;
  }
  const int64_t batch = 2;
  size_t numInputs = fusec_plan_num_inputs(plan), numOutputs = fusec_plan_num_outputs(plan);
  const float **inputs = calloc(numInputs, sizeof(float *));
  float **outputs = calloc(numOutputs, sizeof(float *));
  for (size_t i = 0; i < numInputs; ++i) {
    size_t n = elements(plan, 1, i, batch);
    float *data = malloc(n * sizeof(float));
    for (size_t k = 0; k < n; ++k)
      data[k] = (float)((k % 7) - 3) * 0.25f;
    inputs[i] = data;
  }
  for (size_t i = 0; i < numOutputs; ++i)
    outputs[i] = malloc(elements(plan, 0, i, batch) * sizeof(float));
  if (fusec_session_run(session, batch, inputs, outputs) != 0) {
    fprintf(stderr, "consumer: %s\n", fusec_last_error());
    return 1;
  }
  double sum = 0;
  for (size_t k = 0; k < elements(plan, 0, 0, batch); ++k)
    sum += outputs[0][k];
  printf("consumer: ran %s at batch %lld, output '%s' sums to %g\n", argv[1], (long long)batch,
         fusec_plan_output_name(plan, 0), sum);
  for (size_t i = 0; i < numInputs; ++i)
    free((void *)inputs[i]);
  for (size_t i = 0; i < numOutputs; ++i)
    free(outputs[i]);
  free(inputs);
  free(outputs);
  fusec_session_free(session);
  fusec_plan_free(plan);
  return 0;
}
