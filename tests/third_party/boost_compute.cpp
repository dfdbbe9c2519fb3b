// Boost.Compute, a header-only C++ library that generates its kernels at run time, on whatever
// OpenCL device the program finds: sorting (radix and by key, of built-in types and of an
// adapted struct), reductions, scans, lambda transforms, the Mersenne twister against the
// C++ standard library's, and a kernel of ours that builds strings from string literals.
// Each result is checked on the host; the program prints ALL OK when all agree.
#define BOOST_COMPUTE_DEBUG_KERNEL_COMPILATION
#include <boost/compute.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace compute = boost::compute;

struct Particle {
    float mass;
    int id;
};
BOOST_COMPUTE_ADAPT_STRUCT(Particle, Particle, (mass, id))

static int failures = 0;

static void check(bool ok, const char *what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? std::stoul(argv[1]) : 2000;
    compute::device device = compute::system::default_device();
    compute::context context(device);
    compute::command_queue queue(context, device);

    std::mt19937 host_random(7);
    std::vector<unsigned> keys(n);
    for (auto &k : keys) k = host_random();
    std::vector<float> values(n);
    for (size_t i = 0; i < n; i++) values[i] = float(i % 97) * 0.5f - 10.0f;

    // Radix sort of unsigned integers.
    compute::vector<unsigned> d_keys(keys.begin(), keys.end(), queue);
    compute::sort(d_keys.begin(), d_keys.end(), queue);
    std::vector<unsigned> sorted(n);
    compute::copy(d_keys.begin(), d_keys.end(), sorted.begin(), queue);
    std::vector<unsigned> expected = keys;
    std::sort(expected.begin(), expected.end());
    check(sorted == expected, "sort uint");

    // Sort by key: floats carried along with their keys.
    compute::vector<unsigned> k2(keys.begin(), keys.end(), queue);
    compute::vector<float> v2(values.begin(), values.end(), queue);
    compute::sort_by_key(k2.begin(), k2.end(), v2.begin(), queue);
    std::vector<float> carried(n);
    compute::copy(v2.begin(), v2.end(), carried.begin(), queue);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    bool by_key = true;
    for (size_t i = 0; i < n; i++) by_key &= carried[i] == values[order[i]];
    check(by_key, "sort_by_key uint -> float");

    // Sorting structs by a member, with a comparator written in OpenCL C.
    std::vector<Particle> particles(n);
    for (size_t i = 0; i < n; i++) particles[i] = {float(keys[i] % 1000), int(i)};
    compute::vector<Particle> d_particles(particles.begin(), particles.end(), queue);
    BOOST_COMPUTE_FUNCTION(bool, lighter, (Particle a, Particle b), {
        return a.mass < b.mass || (a.mass == b.mass && a.id < b.id);
    });
    compute::sort(d_particles.begin(), d_particles.end(), lighter, queue);
    std::vector<Particle> sorted_particles(n);
    compute::copy(d_particles.begin(), d_particles.end(), sorted_particles.begin(), queue);
    std::sort(particles.begin(), particles.end(), [](const Particle &a, const Particle &b) {
        return a.mass < b.mass || (a.mass == b.mass && a.id < b.id);
    });
    bool structs = true;
    for (size_t i = 0; i < n; i++) structs &= sorted_particles[i].id == particles[i].id;
    check(structs, "sort of an adapted struct");

    // Reductions and scans.
    compute::vector<float> d_values(values.begin(), values.end(), queue);
    float sum = 0;
    compute::reduce(d_values.begin(), d_values.end(), &sum, queue);
    check(std::abs(sum - std::accumulate(values.begin(), values.end(), 0.0f)) < 1e-2f, "reduce float");
    unsigned largest = 0;
    compute::reduce(d_keys.begin(), d_keys.end(), &largest, compute::max<unsigned>(), queue);
    check(largest == expected.back(), "reduce max uint");
    std::vector<int> ones(n, 1);
    compute::vector<int> d_ones(ones.begin(), ones.end(), queue);
    compute::vector<int> d_scan(n, context);
    compute::exclusive_scan(d_ones.begin(), d_ones.end(), d_scan.begin(), queue);
    std::vector<int> scan(n);
    compute::copy(d_scan.begin(), d_scan.end(), scan.begin(), queue);
    bool scanned = true;
    for (size_t i = 0; i < n; i++) scanned &= scan[i] == int(i);
    check(scanned, "exclusive_scan int");

    // A lambda transform and count_if.
    using compute::lambda::_1;
    compute::vector<float> d_out(n, context);
    compute::transform(d_values.begin(), d_values.end(), d_out.begin(), _1 * 2.0f + 1.0f, queue);
    std::vector<float> out(n);
    compute::copy(d_out.begin(), d_out.end(), out.begin(), queue);
    bool lambda = true;
    for (size_t i = 0; i < n; i++) lambda &= out[i] == values[i] * 2.0f + 1.0f;
    check(lambda, "transform with a lambda");
    size_t negative = compute::count_if(d_values.begin(), d_values.end(), _1 < 0.0f, queue);
    check(negative == size_t(std::count_if(values.begin(), values.end(), [](float v) { return v < 0; })),
          "count_if");

    // The Mersenne twister gives the standard library's numbers.
    compute::mt19937 engine(queue);
    compute::vector<unsigned> d_random(1000, context);
    engine.generate(d_random.begin(), d_random.end(), queue);
    std::vector<unsigned> random(1000);
    compute::copy(d_random.begin(), d_random.end(), random.begin(), queue);
    std::mt19937 reference;
    bool twister = true;
    for (unsigned r : random) twister &= r == reference();
    check(twister, "mt19937 matches std::mt19937");

    // A kernel of ours that copies string literals through a __constant char * parameter.
    const char *source = R"(
        inline void put(__constant const char *s, __global char *out) {
            for (int i = 0; s[i]; ++i) out[i] = s[i];
        }
        __kernel void fizz_buzz(__global char *out) {
            int i = get_global_id(0) + 1;
            __global char *mine = out + 16 * (i - 1);
            if (i % 15 == 0) put("fizzbuzz", mine);
            else if (i % 5 == 0) put("buzz", mine);
            else if (i % 3 == 0) put("fizz", mine);
            else { mine[0] = "0123456789"[i / 10]; mine[1] = "0123456789"[i % 10]; }
            mine[15] = sizeof("fizzbuzz");
        })";
    compute::program program = compute::program::create_with_source(source, context);
    program.build();
    compute::kernel kernel(program, "fizz_buzz");
    std::vector<char> text(16 * 15, 0);
    compute::vector<char> d_text(text.begin(), text.end(), queue);
    kernel.set_arg(0, d_text);
    queue.enqueue_1d_range_kernel(kernel, 0, 15, 0);
    compute::copy(d_text.begin(), d_text.end(), text.begin(), queue);
    std::string words;
    for (int i = 0; i < 15; i++) words += std::string(&text[16 * i]) + " ";
    check(words == "01 02 fizz 04 buzz fizz 07 08 fizz buzz 11 fizz 13 14 fizzbuzz ", words.c_str());
    check(text[15] == 9, "sizeof of a string literal");

    if (failures == 0) std::printf("ALL OK\n");
    return failures == 0 ? 0 : 1;
}
