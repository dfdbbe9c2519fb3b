// A host program of ours whose kernels are ViennaCL's (Debian's libviennacl-dev, header-only,
// OpenCL back end): vector arithmetic, inner product, 2-norm, dense matrix products and a CG
// solve of a sparse (CSR) Poisson matrix, each checked against a direct computation. ViennaCL
// generates its kernels at run time and picks tuned parameters from a table keyed by the
// device's vendor and CL_DEVICE_TYPE, so it needs a device of one type (`clmap exec --emulate
// h100`, or `--limits type=gpu`).
// Usage: viennacl [N] (default 64). Prints one line per check and ALL OK, or exits 1.
#define VIENNACL_WITH_OPENCL
#include <viennacl/vector.hpp>
#include <viennacl/matrix.hpp>
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/prod.hpp>
#include <viennacl/linalg/inner_prod.hpp>
#include <viennacl/linalg/norm_2.hpp>
#include <viennacl/linalg/cg.hpp>
#include <vector>
#include <map>
#include <cmath>
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  std::size_t n = argc > 1 ? std::atoi(argv[1]) : 64; int fails = 0;
  auto report = [&](const char *name, double err, double tol) { bool ok = err < tol; fails += !ok; std::printf("%s: max error %g %s\n", name, err, ok ? "ok" : "WRONG"); };
  std::vector<float> a(n), b(n); for (std::size_t i = 0; i < n; ++i) { a[i] = std::sin(0.3f * i); b[i] = std::cos(0.2f * i); }
  viennacl::vector<float> va(n), vb(n); viennacl::copy(a, va); viennacl::copy(b, vb);
  viennacl::vector<float> vc = 2.0f * va + vb - 0.5f * va; std::vector<float> c(n); viennacl::copy(vc, c);
  double err = 0; for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::fabs(1.5 * a[i] + b[i] - c[i])); report("vector-ops", err, 1e-5);
  double dot = 0; for (std::size_t i = 0; i < n; ++i) dot += (double)a[i] * b[i]; report("inner_prod", std::fabs(viennacl::linalg::inner_prod(va, vb) - dot), 1e-3);
  double nrm = 0; for (std::size_t i = 0; i < n; ++i) nrm += (double)a[i] * a[i]; report("norm_2", std::fabs(viennacl::linalg::norm_2(va) - std::sqrt(nrm)), 1e-3);
  std::vector<std::vector<float>> A(n, std::vector<float>(n)), B(n, std::vector<float>(n));
  for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j < n; ++j) { A[i][j] = std::sin(0.1f * (i * n + j)); B[i][j] = std::cos(0.07f * (i + 3 * j)); }
  viennacl::matrix<float> mA(n, n), mB(n, n); viennacl::copy(A, mA); viennacl::copy(B, mB);
  viennacl::matrix<float> mC = viennacl::linalg::prod(mA, mB); std::vector<std::vector<float>> C(n, std::vector<float>(n)); viennacl::copy(mC, C);
  err = 0; for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j < n; ++j) { double s = 0; for (std::size_t k = 0; k < n; ++k) s += (double)A[i][k] * B[k][j]; err = std::max(err, std::fabs(s - C[i][j])); } report("gemm", err, 1e-3);
  viennacl::vector<float> mv = viennacl::linalg::prod(mA, va); std::vector<float> hv(n); viennacl::copy(mv, hv);
  err = 0; for (std::size_t i = 0; i < n; ++i) { double s = 0; for (std::size_t k = 0; k < n; ++k) s += (double)A[i][k] * a[k]; err = std::max(err, std::fabs(s - hv[i])); } report("gemv", err, 1e-3);
  // A 1-D Poisson matrix, solved with CG.
  std::vector<std::map<unsigned int, float>> P(n); for (std::size_t i = 0; i < n; ++i) { P[i][i] = 2.0f; if (i) P[i][i - 1] = -1.0f; if (i + 1 < n) P[i][i + 1] = -1.0f; }
  viennacl::compressed_matrix<float> vP(n, n); viennacl::copy(P, vP);
  viennacl::vector<float> rhs = viennacl::scalar_vector<float>(n, 1.0f);
  viennacl::vector<float> sol = viennacl::linalg::solve(vP, rhs, viennacl::linalg::cg_tag(1e-6, 4 * n));
  viennacl::vector<float> res = viennacl::linalg::prod(vP, sol) - rhs; report("cg-residual", viennacl::linalg::norm_2(res) / std::sqrt((double)n), 1e-3);
  std::printf(fails ? "SOME WRONG\n" : "ALL OK\n"); return fails != 0;
}
