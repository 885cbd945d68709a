/*===- runtime_c.h - fusec's runtime C API ------------------------*- C -*-===*\
 *
 * Installed as <fusec/runtime_c.h>; usable from plain C. Every function that
 * can fail returns NULL or a non-zero status and leaves a message for
 * fusec_last_error() (per thread).
 *
 *   fusec_plan *plan = fusec_plan_load("model.plan");
 *   fusec_session *session = fusec_session_create(plan, "auto");
 *   const float *inputs[] = {x};  float *outputs[] = {y};
 *   if (fusec_session_run(session, batch, inputs, outputs) != 0)
 *     fprintf(stderr, "%s\n", fusec_last_error());
 *   fusec_session_free(session);  fusec_plan_free(plan);
 *
\*===----------------------------------------------------------------------===*/
#ifndef FUSEC_RUNTIME_C_API_RUNTIME_C_H
#define FUSEC_RUNTIME_C_API_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fusec_plan fusec_plan;
typedef struct fusec_session fusec_session;

/* The batch dimension in shapes returned by the queries. */
#define FUSEC_BATCH_DIM (-1)

/* The last error message of this thread, or "" when none. */
const char *fusec_last_error(void);

fusec_plan *fusec_plan_load(const char *path);
void fusec_plan_free(fusec_plan *plan);

/* Inputs and outputs of a plan, in the order fusec_session_run takes them. */
size_t fusec_plan_num_inputs(const fusec_plan *plan);
size_t fusec_plan_num_outputs(const fusec_plan *plan);
const char *fusec_plan_input_name(const fusec_plan *plan, size_t index);
const char *fusec_plan_output_name(const fusec_plan *plan, size_t index);
/* Rank of the tensor; its dims (FUSEC_BATCH_DIM for the batch) are written to
   dims[0 .. min(rank, capacity)). Returns 0 for an index out of range. */
size_t fusec_plan_input_shape(const fusec_plan *plan, size_t index, int64_t *dims, size_t capacity);
size_t fusec_plan_output_shape(const fusec_plan *plan, size_t index, int64_t *dims, size_t capacity);

/* device: "cpu", "cuda" or "auto". The session keeps the plan alive. */
fusec_session *fusec_session_create(const fusec_plan *plan, const char *device);
void fusec_session_free(fusec_session *session);

/* The largest batch fusec_session_run accepts: what the plan's arena, inputs
   and outputs allow within this machine's memory. 0 for a NULL session. */
int64_t fusec_session_max_batch(const fusec_session *session);

/* Shape variants (fusec --dim seq=64,128): the plan's queries above describe its first; a session runs the one
   fusec_session_select_dims chose (the first until then) and its shape queries describe that one. */
size_t fusec_plan_num_shape_variants(const fusec_plan *plan);
/* Variant `variant`'s named dimensions (0: the plan's own): writes names[i] (valid while the plan lives) and sizes[i]
   for i < min(count, capacity) and returns count, the number of names; 0 for an index out of range or a plan that
   names none. */
size_t fusec_plan_shape_variant_dims(const fusec_plan *plan, size_t variant, const char **names, int64_t *sizes,
                                     size_t capacity);
/* Ranges (fusec --dim seq=1:512): the plan's input and output shapes write range i's dimension as -2 - i. Writes
   range `index`'s name (valid while the plan lives) and bounds; returns 0 for an index out of range (a plan with no
   ranges has none), 1 otherwise. */
size_t fusec_plan_num_ranges(const fusec_plan *plan);
int fusec_plan_range(const fusec_plan *plan, size_t index, const char **name, int64_t *min, int64_t *opt, int64_t *max);
/* Selects the variant compiled for exactly these sizes: names[i] = sizes[i] for i < count, every named dimension of
   the plan once; for a plan with ranges, a size of each range (the session starts at each range's opt size).
   Returns 0 on success; on failure the last error lists the sizes the plan holds. */
int fusec_session_select_dims(fusec_session *session, const char *const *names, const int64_t *sizes, size_t count);
/* fusec_plan_input_shape/output_shape of the session's selected variant. */
size_t fusec_session_input_shape(const fusec_session *session, size_t index, int64_t *dims, size_t capacity);
size_t fusec_session_output_shape(const fusec_session *session, size_t index, int64_t *dims, size_t capacity);

/* Element type of a tensor: "f32", "f16", "bf16", "i64", "i32" or "i1" (docs/plan-format.md, "Element types"); NULL
   for an index out of range. */
const char *fusec_plan_input_dtype(const fusec_plan *plan, size_t index);
const char *fusec_plan_output_dtype(const fusec_plan *plan, size_t index);

/* Runs at `batch` (1 <= batch <= fusec_session_max_batch): inputs[i] and outputs[i] are float32, C order, holding the
   plan's shapes with the batch dimension set to `batch`. Fails unless every input and output of the plan is f32.
   Returns 0 on success. */
int fusec_session_run(fusec_session *session, int64_t batch, const float *const *inputs, float *const *outputs);

/* Like fusec_session_run, for any element types: inputs[i] and outputs[i] hold their tensor's dtype (f16 and bf16 as
   16-bit patterns, i1 as one byte 0 or 1), little-endian. Returns 0 on success. */
int fusec_session_run_typed(fusec_session *session, int64_t batch, const void *const *inputs, void *const *outputs);

/* Like fusec_session_run_typed on buffers in the device's memory: CUDA device pointers (CUdeviceptr values cast to
   pointers) of the session's device, or host pointers on the CPU backend. `stream` is a CUstream of that device or
   NULL. With a stream the run is ordered after the stream's earlier work and before its later work, and the call
   returns once it is enqueued (no copies through the host, no device-wide synchronization); with NULL it returns
   when the run has finished. Returns 0 on success. */
int fusec_session_run_device(fusec_session *session, int64_t batch, const void *const *inputs, void *const *outputs,
                             void *stream);

#ifdef __cplusplus
}
#endif

#endif /* FUSEC_RUNTIME_C_API_RUNTIME_C_H */
