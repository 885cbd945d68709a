/* Runs a plan through fusec's C API from plain C: checks the error path,
 * then runs the plan on an input read from a .npy file and compares its one
 * output with reference values from another .npy file, element by element,
 * like numpy.allclose(actual, expected, rtol, atol). */
#include <fusec/runtime_c.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A float32, C-order .npy array. */
typedef struct {
  int64_t dims[16];
  size_t rank;
  size_t count;
  float *data;
} npy_array;

/* Reads `path` into `array`; prints why and returns 0 if it cannot. */
static int read_npy(const char *path, npy_array *array) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "consumer: cannot open '%s'\n", path);
    return 0;
  }
  unsigned char preamble[12];
  if (fread(preamble, 1, 10, file) != 10 || memcmp(preamble, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "consumer: '%s' is not a .npy file\n", path);
    fclose(file);
    return 0;
  }
  size_t header_size = preamble[8] | (size_t)preamble[9] << 8;
  if (preamble[6] >= 2) { /* versions 2 and 3: a 4-byte header length */
    if (fread(preamble + 10, 1, 2, file) != 2) {
      fprintf(stderr, "consumer: '%s' is truncated\n", path);
      fclose(file);
      return 0;
    }
    header_size |= (size_t)preamble[10] << 16 | (size_t)preamble[11] << 24;
  }
  char *header = calloc(header_size + 1, 1);
  const char *shape = NULL;
  if (fread(header, 1, header_size, file) != header_size || !strstr(header, "'descr': '<f4'") ||
      !strstr(header, "'fortran_order': False") || !(shape = strstr(header, "'shape': ("))) {
    fprintf(stderr, "consumer: '%s' is not a little-endian float32 C-order .npy file\n", path);
    free(header);
    fclose(file);
    return 0;
  }
  array->rank = 0;
  array->count = 1;
  for (const char *p = shape + strlen("'shape': ("); *p != ')' && array->rank < 16;) {
    char *end;
    const long long dim = strtoll(p, &end, 10);
    if (end == p)
      break;
    array->dims[array->rank++] = dim;
    array->count *= (size_t)dim;
    p = end + strspn(end, ", ");
  }
  free(header);
  array->data = malloc(array->count * sizeof(float) + 1);
  const size_t read = fread(array->data, sizeof(float), array->count, file);
  const int trailing = fgetc(file) != EOF;
  fclose(file);
  if (array->rank == 0 || read != array->count || trailing) {
    fprintf(stderr, "consumer: '%s': data does not match its shape\n", path);
    free(array->data);
    return 0;
  }
  return 1;
}

static size_t elements(const fusec_plan *plan, int input, size_t index, int64_t batch) {
  int64_t dims[16];
  size_t rank = input ? fusec_plan_input_shape(plan, index, dims, 16) : fusec_plan_output_shape(plan, index, dims, 16);
  size_t count = 1;
  for (size_t d = 0; d < rank; ++d)
    count *= (size_t)(dims[d] == FUSEC_BATCH_DIM ? batch : dims[d]);
  return count;
}

/* Compares `actual` with `expected` like numpy.allclose; prints the first
 * mismatches and returns how many elements differ. */
static size_t compare(const float *actual, const npy_array *expected, double rtol, double atol, double *max_error) {
  size_t mismatches = 0;
  *max_error = 0;
  for (size_t k = 0; k < expected->count; ++k) {
    const double got = actual[k], want = expected->data[k];
    const double error = fabs(got - want);
    const int close = isnan(want) ? isnan(got) : error <= atol + rtol * fabs(want);
    if (!isnan(error) && error > *max_error)
      *max_error = error;
    if (close)
      continue;
    if (mismatches++ < 5)
      fprintf(stderr, "consumer: element %zu is %.9g, the reference says %.9g\n", k, got, want);
  }
  return mismatches;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: consumer_c_api PLAN INPUT.npy EXPECTED.npy RTOL ATOL\n");
    return 2;
  }
  const double rtol = atof(argv[4]), atol = atof(argv[5]);
  if (fusec_plan_load("/nonexistent.plan") != NULL || fusec_last_error()[0] == '\0') {
    fprintf(stderr, "consumer: a missing plan must fail with a message\n");
    return 1;
  }
  fusec_plan *plan = fusec_plan_load(argv[1]);
  if (!plan) {
    fprintf(stderr, "consumer: %s\n", fusec_last_error());
    return 1;
  }
  if (fusec_plan_num_inputs(plan) != 1 || fusec_plan_num_outputs(plan) != 1) {
    fprintf(stderr, "consumer: '%s' must have one input and one output\n", argv[1]);
    return 1;
  }
  npy_array input, expected;
  if (!read_npy(argv[2], &input) || !read_npy(argv[3], &expected))
    return 1;
  const int64_t batch = input.dims[0];
  if (input.count != elements(plan, 1, 0, batch) || expected.count != elements(plan, 0, 0, batch)) {
    fprintf(stderr, "consumer: the .npy shapes do not match the plan's at batch %lld\n", (long long)batch);
    return 1;
  }
  fusec_session *session = fusec_session_create(plan, "cpu");
  if (!session) {
    fprintf(stderr, "consumer: %s\n", fusec_last_error());
    return 1;
  }
  float *output = malloc(expected.count * sizeof(float));
  const float *inputs[1] = {input.data};
  float *outputs[1] = {output};
  if (fusec_session_run(session, batch, inputs, outputs) != 0) {
    fprintf(stderr, "consumer: %s\n", fusec_last_error());
    return 1;
  }
  double max_error;
  const size_t mismatches = compare(output, &expected, rtol, atol, &max_error);
  if (mismatches) {
    fprintf(stderr,
            "consumer: output '%s' of %s at batch %lld: %zu of %zu elements differ from %s beyond rtol %g, atol %g\n",
            fusec_plan_output_name(plan, 0), argv[1], (long long)batch, mismatches, expected.count, argv[3], rtol,
            atol);
    return 1;
  }
  printf("consumer: output '%s' of %s at batch %lld matches %s (%zu elements, max abs error %g)\n",
         fusec_plan_output_name(plan, 0), argv[1], (long long)batch, argv[3], expected.count, max_error);
  /* The same run on caller-owned buffers in the device's memory (host memory for the CPU backend, no stream). */
  float *device_output = malloc(expected.count * sizeof(float));
  const void *device_inputs[1] = {input.data};
  void *device_outputs[1] = {device_output};
  if (fusec_session_run_device(session, batch, device_inputs, device_outputs, NULL) != 0) {
    fprintf(stderr, "consumer: %s\n", fusec_last_error());
    return 1;
  }
  if (memcmp(device_output, output, expected.count * sizeof(float)) != 0) {
    fprintf(stderr, "consumer: fusec_session_run_device gave other values than fusec_session_run\n");
    return 1;
  }
  printf("consumer: fusec_session_run_device on caller-owned buffers gave the same output\n");
  free(device_output);
  free(output);
  free(input.data);
  free(expected.data);
  fusec_session_free(session);
  fusec_plan_free(plan);
  return 0;
}
