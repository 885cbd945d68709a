//===- MmaEmulationTest.cpp - fusec_mma.h primitives under emulation ------===//
//
// Each primitive of codegen/include/fusec_mma.h runs in a one-warp kernel
// under the emulation. The tests build every lane's fragment registers from
// whole matrices by the PTX ISA's fragment tables (what lane, register and
// half hold element (row, col)), and read the results back the same way, so
// the emulation's own layout code is checked against an independent
// statement of the layouts and against scalar products computed here.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

using namespace fusec::test;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"
#include "fusec_mma.h"

// One warp: each lane loads its registers from a[lane][*], b[lane][*],
// c[lane][*] and stores d[lane][*]. `kind` picks the instruction.
extern "C" __global__ void mma(const unsigned *a, const unsigned *b, const float *c, float *d, int kind) {
  const int lane = threadIdx.x;
  unsigned ra[4] = {a[4 * lane], a[4 * lane + 1], a[4 * lane + 2], a[4 * lane + 3]};
  unsigned rb[2] = {b[2 * lane], b[2 * lane + 1]};
  float acc[4] = {c[4 * lane], c[4 * lane + 1], c[4 * lane + 2], c[4 * lane + 3]};
  if (kind == 0)
    fusec_mma_m16n8k8_tf32(acc, ra, rb, acc);
  else if (kind == 1)
    fusec_mma_m16n8k16_f16(acc, ra, rb, acc);
  else
    fusec_mma_m16n8k16_bf16(acc, ra, rb, acc);
  for (int i = 0; i < 4; ++i)
    d[4 * lane + i] = acc[i];
}

// The 8-bit integer mma: kind 0 s8 x s8, kind 1 u8 x s8.
extern "C" __global__ void mma_int8(const unsigned *a, const unsigned *b, const int *c, int *d, int kind) {
  const int lane = threadIdx.x;
  unsigned ra[4] = {a[4 * lane], a[4 * lane + 1], a[4 * lane + 2], a[4 * lane + 3]};
  unsigned rb[2] = {b[2 * lane], b[2 * lane + 1]};
  int acc[4] = {c[4 * lane], c[4 * lane + 1], c[4 * lane + 2], c[4 * lane + 3]};
  if (kind == 0)
    fusec_mma_m16n8k32_s8(acc, ra, rb, acc);
  else
    fusec_mma_m16n8k32_u8s8(acc, ra, rb, acc);
  for (int i = 0; i < 4; ++i)
    d[4 * lane + i] = acc[i];
}

// out[2i]: the operand the templates use (fusec_to_tf32); out[2i + 1]: the
// instruction's raw result.
extern "C" __global__ void cvt_tf32(const float *in, unsigned *out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[2 * i] = fusec_to_tf32(in[i]);
    out[2 * i + 1] = fusec_cvt_rna_tf32(in[i]);
  }
}

// Four 8x8 matrices of 16-bit elements in shared memory, rows 16 elements
// (32 bytes) apart, matrix m starting at row 8m. Lane l passes the address of
// row l % 8 of matrix (l / 8) % Count.
template <int Count, bool Trans> __device__ void ldmatrixCase(const unsigned short *in, unsigned *out) {
  __shared__ __attribute__((aligned(16))) unsigned short tile[32 * 16];
  for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
    tile[i] = in[i];
  __syncthreads();
  const int lane = threadIdx.x;
  unsigned r[Count];
  fusec_ldmatrix<Count, Trans>(r, &tile[(8 * ((lane / 8) % Count) + lane % 8) * 16]);
  for (int i = 0; i < Count; ++i)
    out[4 * lane + i] = r[i];
}

extern "C" __global__ void ldmatrix(const unsigned short *in, unsigned *out, int variant) {
  switch (variant) {
  case 0: ldmatrixCase<1, false>(in, out); break;
  case 1: ldmatrixCase<2, false>(in, out); break;
  case 2: ldmatrixCase<4, false>(in, out); break;
  case 3: ldmatrixCase<1, true>(in, out); break;
  case 4: ldmatrixCase<2, true>(in, out); break;
  default: ldmatrixCase<4, true>(in, out); break;
  }
}

// Thread i copies 16 bytes of `in` starting at float 4i into shared memory
// with sourceBytes[i], as copy size 4, 8 or 16 (ca) or 16 (cg), in two groups
// (even threads' copies first). Snapshots of shared memory go to out: after
// wait_group 1, and after wait_group 0.
extern "C" __global__ void cpasync(const float *in, const unsigned *sourceBytes, float *out, int variant) {
  __shared__ __attribute__((aligned(16))) float staged[64 * 4];
  const int i = threadIdx.x;
  for (int j = 0; j < 4; ++j)
    staged[4 * i + j] = -1.0f;
  __syncthreads();
  for (int group = 0; group < 2; ++group) {
    if (i % 2 == group) {
      float *destination = &staged[4 * i];
      const float *source = &in[4 * i];
      unsigned bytes = sourceBytes[i];
      if (variant == 0) {
        for (int part = 0; part < 4; ++part)
          fusec_cp_async_ca<4>(destination + part, source + part, bytes > 4u * part ? min(4, int(bytes) - 4 * part) : 0);
      } else if (variant == 1) {
        for (int part = 0; part < 2; ++part)
          fusec_cp_async_ca<8>(destination + 2 * part, source + 2 * part,
                               bytes > 8u * part ? min(8, int(bytes) - 8 * part) : 0);
      } else if (variant == 2) {
        fusec_cp_async_ca<16>(destination, source, bytes);
      } else {
        fusec_cp_async_cg(destination, source, bytes);
      }
    }
    fusec_cp_async_commit();
  }
  fusec_cp_async_wait<1>();
  __syncthreads();
  for (int j = 0; j < 4; ++j)
    out[4 * i + j] = staged[4 * i + j];
  __syncthreads();
  fusec_cp_async_wait<0>();
  __syncthreads();
  for (int j = 0; j < 4; ++j)
    out[256 + 4 * i + j] = staged[4 * i + j];
}

#ifdef FUSEC_EMULATION
extern "C" void mma__emulated(void **args) {
  mma(static_cast<const unsigned *>(args[0]), static_cast<const unsigned *>(args[1]),
      static_cast<const float *>(args[2]), static_cast<float *>(args[3]), *static_cast<int *>(args[4]));
}
extern "C" void mma_int8__emulated(void **args) {
  mma_int8(static_cast<const unsigned *>(args[0]), static_cast<const unsigned *>(args[1]),
           static_cast<const int *>(args[2]), static_cast<int *>(args[3]), *static_cast<int *>(args[4]));
}
extern "C" void cvt_tf32__emulated(void **args) {
  cvt_tf32(static_cast<const float *>(args[0]), static_cast<unsigned *>(args[1]), *static_cast<int *>(args[2]));
}
extern "C" void ldmatrix__emulated(void **args) {
  ldmatrix(static_cast<const unsigned short *>(args[0]), static_cast<unsigned *>(args[1]),
           *static_cast<int *>(args[2]));
}
extern "C" void cpasync__emulated(void **args) {
  cpasync(static_cast<const float *>(args[0]), static_cast<const unsigned *>(args[1]), static_cast<float *>(args[2]),
          *static_cast<int *>(args[3]));
}
#endif
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

/// f16 bits of a value exactly representable as a normal f16 (or zero).
uint16_t toHalf(float value) {
  const uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffffu) == 0)
    return uint16_t(bits >> 16);
  const uint32_t exponent = (bits >> 23) & 0xff;
  REQUIRE(exponent >= 113);
  REQUIRE(exponent <= 142);
  REQUIRE((bits & 0x1fffu) == 0);
  return uint16_t((bits >> 16 & 0x8000u) | (exponent - 112) << 10 | (bits >> 13 & 0x3ffu));
}

/// bf16 bits of a value exactly representable as bf16.
uint16_t toBf16(float value) {
  REQUIRE((bitsOf(value) & 0xffffu) == 0);
  return uint16_t(bitsOf(value) >> 16);
}

/// Multiples of 1/8 in [-2, 2]: exact in tf32, f16 and bf16, and sums of
/// up to 16 of their products (multiples of 1/64 below 64) are exact in f32.
std::vector<float> eighths(size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> numerator(-16, 16);
  std::vector<float> values(count);
  for (float &value : values)
    value = numerator(random) / 8.0f;
  return values;
}

/// The accumulator layout of every m16n8 shape: c[i] = C(g + 8 (i / 2), 2t + i % 2).
struct Coordinates {
  unsigned row, col;
};
Coordinates accumulatorElement(unsigned lane, unsigned i) { return {lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2}; }

/// Runs one mma on row-major A (16 x K), B (K x 8) and C (16 x 8), with the
/// operand registers built by `packA(lane, register)` and `packB`, and
/// checks D = A B + C exactly.
template <typename PackA, typename PackB>
void checkMma(int kind, unsigned k, const std::vector<float> &a, const std::vector<float> &b, PackA packA,
              PackB packB) {
  std::vector<uint32_t> aFragments(32 * 4), bFragments(32 * 2);
  std::vector<float> c = eighths(16 * 8, 7), cFragments(32 * 4), dFragments(32 * 4, NAN);
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned r = 0; r < 4; ++r) {
      aFragments[4 * lane + r] = packA(lane, r);
      Coordinates at = accumulatorElement(lane, r);
      cFragments[4 * lane + r] = c[at.row * 8 + at.col];
    }
    for (unsigned r = 0; r < 2; ++r)
      bFragments[2 * lane + r] = packB(lane, r);
  }
  kernels().launch("mma", {1}, {32},
                   {aFragments.data(), bFragments.data(), cFragments.data(), dFragments.data(), &kind});
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < 4; ++i) {
      Coordinates at = accumulatorElement(lane, i);
      double expected = c[at.row * 8 + at.col];
      for (unsigned kk = 0; kk < k; ++kk)
        expected += double(a[at.row * k + kk]) * b[kk * 8 + at.col];
      INFO("lane " << lane << " register " << i << " = D(" << at.row << ", " << at.col << ")");
      REQUIRE(dFragments[4 * lane + i] == float(expected));
    }
}

} // namespace

TEST_CASE("emulated mma.m16n8k8 tf32 follows the PTX fragment layout", "[codegen][mma]") {
  std::vector<float> a = eighths(16 * 8, 1), b = eighths(8 * 8, 2);
  // Bits below tf32's 10 mantissa bits are ignored: garbage there must not
  // change the product.
  auto withGarbage = [](float value, unsigned salt) { return bitsOf(value) | (salt * 2654435761u & 0x1fffu); };
  checkMma(
      0, 8, a, b,
      [&](unsigned lane, unsigned r) {
        // a0 = A(g, t), a1 = A(g+8, t), a2 = A(g, t+4), a3 = A(g+8, t+4)
        const unsigned row = lane / 4 + (r % 2 ? 8 : 0), col = lane % 4 + (r >= 2 ? 4 : 0);
        return withGarbage(a[row * 8 + col], lane * 4 + r);
      },
      [&](unsigned lane, unsigned r) {
        // b0 = B(t, g), b1 = B(t+4, g)
        const unsigned row = lane % 4 + (r ? 4 : 0), col = lane / 4;
        return withGarbage(b[row * 8 + col], 1000 + lane * 2 + r);
      });
}

/// The m16n8k16 tables for 16-bit types: register r holds elements a_{2r}
/// and a_{2r+1}; a_i has row g (i < 2 or 4 <= i < 6) else g + 8, and column
/// 2t + (i & 1), plus 8 for i >= 4. b_i has row 2t + (i & 1), plus 8 for
/// i >= 2, and column g.
template <typename Convert> void checkMmaK16(int kind, Convert convert) {
  std::vector<float> a = eighths(16 * 16, 3 + kind), b = eighths(16 * 8, 5 + kind);
  auto pack = [&](auto element) {
    return [=](unsigned lane, unsigned r) {
      return uint32_t(convert(element(lane, 2 * r))) | uint32_t(convert(element(lane, 2 * r + 1))) << 16;
    };
  };
  checkMma(kind, 16, a, b, pack([&](unsigned lane, unsigned i) {
             const unsigned row = lane / 4 + ((i % 4) >= 2 ? 8 : 0), col = 2 * (lane % 4) + (i & 1) + (i >= 4 ? 8 : 0);
             return a[row * 16 + col];
           }),
           pack([&](unsigned lane, unsigned i) {
             const unsigned row = 2 * (lane % 4) + (i & 1) + (i >= 2 ? 8 : 0), col = lane / 4;
             return b[row * 8 + col];
           }));
}

TEST_CASE("emulated mma.m16n8k16 f16 follows the PTX fragment layout", "[codegen][mma]") { checkMmaK16(1, toHalf); }

TEST_CASE("emulated mma.m16n8k16 bf16 follows the PTX fragment layout", "[codegen][mma]") { checkMmaK16(2, toBf16); }

/// The m16n8k32 tables for 8-bit types (PTX ISA, "Matrix Fragments for
/// mma.m16n8k32", .s8/.u8): register r holds elements a_{4r} .. a_{4r+3},
/// the lowest in the low byte; a_i has row g (0 <= i < 4 or 8 <= i < 12)
/// else g + 8, and column 4t + (i & 3), plus 16 for i >= 8. b_i has row
/// 4t + (i & 3), plus 16 for i >= 4, and column g. The accumulators are
/// those of every m16n8 shape, as s32.
void checkMmaInt8(int kind) {
  const bool unsignedA = kind == 1;
  std::mt19937 random(11 + kind);
  std::uniform_int_distribution<int> aValue(unsignedA ? 0 : -128, unsignedA ? 255 : 127), bValue(-128, 127),
      cValue(-100000, 100000);
  std::vector<int> a(16 * 32), b(32 * 8), c(16 * 8);
  for (int &v : a)
    v = aValue(random);
  for (int &v : b)
    v = bValue(random);
  for (int &v : c)
    v = cValue(random);
  // Extremes too: the largest magnitudes in the first row and column.
  for (unsigned k = 0; k < 32; ++k) {
    a[k] = unsignedA ? 255 : -128;
    b[k * 8] = -128;
  }
  std::vector<uint32_t> aFragments(32 * 4), bFragments(32 * 2);
  std::vector<int> cFragments(32 * 4), dFragments(32 * 4, 0x7fffffff);
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned g = lane / 4, t = lane % 4;
    for (unsigned r = 0; r < 4; ++r) {
      uint32_t word = 0;
      for (unsigned byte = 0; byte < 4; ++byte) {
        const unsigned i = 4 * r + byte;
        const unsigned row = g + ((i < 4 || (i >= 8 && i < 12)) ? 0 : 8), col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
        word |= uint32_t(uint8_t(a[row * 32 + col])) << (8 * byte);
      }
      aFragments[4 * lane + r] = word;
      Coordinates at = accumulatorElement(lane, r);
      cFragments[4 * lane + r] = c[at.row * 8 + at.col];
    }
    for (unsigned r = 0; r < 2; ++r) {
      uint32_t word = 0;
      for (unsigned byte = 0; byte < 4; ++byte) {
        const unsigned i = 4 * r + byte;
        word |= uint32_t(uint8_t(b[(4 * t + (i & 3) + (i >= 4 ? 16 : 0)) * 8 + g])) << (8 * byte);
      }
      bFragments[2 * lane + r] = word;
    }
  }
  kernels().launch("mma_int8", {1}, {32},
                   {aFragments.data(), bFragments.data(), cFragments.data(), dFragments.data(), &kind});
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < 4; ++i) {
      Coordinates at = accumulatorElement(lane, i);
      int64_t expected = c[at.row * 8 + at.col];
      for (unsigned k = 0; k < 32; ++k)
        expected += int64_t(a[at.row * 32 + k]) * b[k * 8 + at.col];
      INFO("lane " << lane << " register " << i << " = D(" << at.row << ", " << at.col << ")");
      REQUIRE(dFragments[4 * lane + i] == expected);
    }
}

TEST_CASE("emulated mma.m16n8k32 s8 follows the PTX fragment layout", "[codegen][mma]") { checkMmaInt8(0); }

TEST_CASE("emulated mma.m16n8k32 u8 x s8 follows the PTX fragment layout", "[codegen][mma]") { checkMmaInt8(1); }

TEST_CASE("emulated cvt.rna.tf32.f32 rounds to nearest, ties away from zero, and fusec_to_tf32 clears the low bits",
          "[codegen][mma]") {
  const float ulp = std::ldexp(1.0f, -10); // tf32's unit in the last place at 1
  std::vector<std::pair<float, float>> cases = {
      {1.0f, 1.0f},
      {1.0f + ulp / 2, 1.0f + ulp},                       // tie: away from zero
      {-(1.0f + ulp / 2), -(1.0f + ulp)},                 // tie, negative: away from zero
      {1.0f + 3 * ulp / 2, 1.0f + 2 * ulp},               // tie, odd: away (not to even)
      {std::nextafter(1.0f + ulp / 2, 0.0f), 1.0f},       // below the tie: down
      {std::nextafter(1.0f + ulp / 2, 2.0f), 1.0f + ulp}, // above the tie: up
      {0.0f, 0.0f},
      {-0.0f, -0.0f},
      {INFINITY, INFINITY},
      {-INFINITY, -INFINITY},
      {std::numeric_limits<float>::max(), INFINITY}, // rounds up past the largest tf32
      {std::numeric_limits<float>::denorm_min(), 0.0f},
  };
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(-1000.0f, 1000.0f);
  const size_t fixed = cases.size();
  std::vector<float> in;
  for (auto &[value, expected] : cases)
    in.push_back(value);
  for (int i = 0; i < 200; ++i)
    in.push_back(uniform(random));
  in.push_back(NAN);
  std::vector<uint32_t> results(2 * in.size());
  int n = int(in.size());
  kernels().launch("cvt_tf32", {1}, {64}, {in.data(), results.data(), &n});
  size_t rawWithLowBits = 0;
  std::vector<uint32_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = results[2 * i];
    const uint32_t raw = results[2 * i + 1];
    INFO("cvt.rna.tf32.f32(" << in[i] << ") = " << floatOf(out[i]) << ", raw bits " << raw);
    // The instruction's tf32 is the high 19 bits; fusec_to_tf32 clears the
    // rest, which the ISA leaves unspecified (the emulation keeps x's there).
    CHECK((raw & 0xffffe000u) == out[i]);
    rawWithLowBits += (raw & 0x1fffu) != 0;
    CHECK((out[i] & 0x1fffu) == 0);
    if (i < fixed) {
      CHECK(bitsOf(cases[i].second) == out[i]);
    } else if (std::isnan(in[i])) {
      CHECK(std::isnan(floatOf(out[i])));
    } else {
      // Within half a tf32 ulp of the input, and the nearest tf32 value.
      const double error = std::fabs(double(floatOf(out[i])) - in[i]);
      const double tf32Ulp = std::ldexp(1.0, std::ilogb(in[i]) - 10);
      CHECK(error <= tf32Ulp / 2);
    }
  }
  // The emulated instruction does leave bits there (else clearing them
  // would be untested).
  CHECK(rawWithLowBits > 100);
}

TEST_CASE("emulated ldmatrix x1/x2/x4 and .trans follow the PTX fragment layout", "[codegen][mma]") {
  // Element (row, col) of matrix m is 1000 m + 16 row + col: all distinct.
  std::vector<uint16_t> in(32 * 16, 0xffff);
  auto element = [](unsigned m, unsigned row, unsigned col) { return uint16_t(1000 * m + 16 * row + col); };
  for (unsigned m = 0; m < 4; ++m)
    for (unsigned row = 0; row < 8; ++row)
      for (unsigned col = 0; col < 8; ++col)
        in[(8 * m + row) * 16 + col] = element(m, row, col);
  for (int variant = 0; variant < 6; ++variant) {
    const unsigned count = 1u << (variant % 3);
    const bool trans = variant >= 3;
    INFO("ldmatrix .x" << count << (trans ? ".trans" : ""));
    std::vector<uint32_t> out(32 * 4, 0xdeadbeef);
    kernels().launch("ldmatrix", {1}, {32}, {in.data(), out.data(), &variant});
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned m = 0; m < 4; ++m) {
        INFO("lane " << lane << " register " << m);
        if (m >= count) {
          REQUIRE(out[4 * lane + m] == 0xdeadbeef);
          continue;
        }
        // Lane 4 row + word receives word `word` of row `row` (of the
        // transposed matrix with .trans): elements (row, 2 word) and
        // (row, 2 word + 1), the first in the low half.
        const unsigned row = lane / 4, word = lane % 4;
        const uint16_t low = trans ? element(m, 2 * word, row) : element(m, row, 2 * word);
        const uint16_t high = trans ? element(m, 2 * word + 1, row) : element(m, row, 2 * word + 1);
        REQUIRE(out[4 * lane + m] == (uint32_t(low) | uint32_t(high) << 16));
      }
  }
}

TEST_CASE("emulated cp.async lands at wait_group and zero-fills past src-size", "[codegen][mma]") {
  std::vector<float> in(64 * 4);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i + 1);
  for (int variant = 0; variant < 4; ++variant) {
    const char *names[] = {"ca 4", "ca 8", "ca 16", "cg 16"};
    INFO("cp.async." << names[variant]);
    // Byte counts the copy size allows: whole 4-byte parts for ca 4, whole
    // 8-byte parts for ca 8, any multiple of 4 for 16-byte copies.
    const unsigned step = variant == 1 ? 8 : 4;
    std::vector<uint32_t> sourceBytes(64);
    for (unsigned i = 0; i < 64; ++i)
      sourceBytes[i] = (i * step) % (16 + step);
    std::vector<float> out(2 * 256, NAN);
    kernels().launch("cpasync", {1}, {64}, {in.data(), sourceBytes.data(), out.data(), &variant});
    for (unsigned i = 0; i < 64; ++i)
      for (unsigned j = 0; j < 4; ++j) {
        INFO("thread " << i << " float " << j << " source bytes " << sourceBytes[i]);
        const float copied = 4 * j < sourceBytes[i] ? in[4 * i + j] : 0.0f;
        // Group 0 (even threads) has landed after wait_group 1; group 1 only
        // after wait_group 0.
        REQUIRE(out[4 * i + j] == (i % 2 == 0 ? copied : -1.0f));
        REQUIRE(out[256 + 4 * i + j] == copied);
      }
  }
}
