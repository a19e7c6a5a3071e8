// tests/suites/conformance/cxx_new_test.cc — C++ operator new and delete on Mortise
// (sockets/cxx_new.h): every form lands in Mortise (dladdr of the operator
// used, and Mortise's malloc_usable_size, which is 0 for blocks it does not
// own, reports each block), sized and aligned forms, nothrow returning
// nullptr, std::bad_alloc, and the new_handler loop. Run linked against
// libmortise-NAME.so and as a plain program under LD_PRELOAD.
#include "conformance.h"

#include <malloc.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace {

struct alignas(256) A256 { char c[300]; };
struct alignas(4096) A4096 { char c[10]; };
struct alignas(65536) A64K { char c[10]; };

volatile std::size_t huge_size = SIZE_MAX / 2; // hidden from the compiler
int handler_calls;
int handler_budget;

void counting_handler()
{
    if (++handler_calls >= handler_budget)
        std::set_new_handler(nullptr); // next failure throws
}

// A block from operator new: Mortise's, aligned, at least `size` bytes.
bool check_owned(const void *p, std::size_t size, std::size_t align, const char *what)
{
    CHECKF(p != nullptr, "%s(%zu) returned nullptr", what, size);
    if (!p)
        return false;
    std::size_t usable = malloc_usable_size(const_cast<void *>(p));
    CHECKF(usable >= size, "%s(%zu): Mortise reports %zu usable bytes", what, size, usable);
    CHECKF(reinterpret_cast<std::uintptr_t>(p) % align == 0, "%s(%zu) = %p not aligned to %zu", what,
           size, p, align);
    return true;
}

// ... and all of them writable.
void check_block(void *p, std::size_t size, std::size_t align, const char *what)
{
    if (!check_owned(p, size, align, what))
        return;
    conf_fill(p, 0, size, size);
    CHECK(conf_verify(p, 0, size, size) == SIZE_MAX);
}

void test_plain()
{
    static const std::size_t sizes[] = {0, 1, 8, 24, 100, 4096, 70000, 300000, 5u << 20};
    for (std::size_t n : sizes) {
        char *a = new char[n];
        CONF_ESCAPE(a);
        check_block(a, n, 16, "new[]");
        delete[] a;
        void *p = ::operator new(n);
        CONF_ESCAPE(p);
        check_block(p, n, 16, "operator new");
        ::operator delete(p, n); // sized delete
        p = ::operator new[](n);
        check_block(p, n, 16, "operator new[]");
        ::operator delete[](p, n);
    }
    int *i = new int(42);
    CONF_ESCAPE(i);
    check_block(i, sizeof *i, alignof(int), "new int");
    delete i;

    // library containers allocate through the same operators
    std::vector<std::string> v;
    for (int k = 0; k < 10000; k++)
        v.push_back(std::string(40, char('a' + k % 26)));
    check_owned(v.data(), v.capacity() * sizeof(std::string), alignof(std::string), "vector");
    CHECK(v[9999][39] == char('a' + 9999 % 26));
    auto u = std::make_unique<std::uint64_t[]>(1u << 20);
    check_owned(u.get(), 8u << 20, 16, "make_unique<uint64_t[]>");
    CHECK(u[12345] == 0);
}

template <class T> void test_aligned_type(const char *what)
{
    T *one = new T;
    CONF_ESCAPE(one);
    check_block(one, sizeof(T), alignof(T), what);
    delete one;
    T *many = new T[7];
    CONF_ESCAPE(many);
    CHECKF(reinterpret_cast<std::uintptr_t>(many) % alignof(T) == 0, "new %s[7] = %p", what,
           static_cast<void *>(many));
    CHECK(malloc_usable_size(many) >= 7 * sizeof(T));
    delete[] many;
}

void test_aligned()
{
    test_aligned_type<A256>("A256");
    test_aligned_type<A4096>("A4096");
    test_aligned_type<A64K>("A64K");
    for (std::size_t align = 1; align <= 65536; align *= 2) {
        const std::align_val_t a{align};
        for (std::size_t n : {std::size_t(1), align, 3 * align + 5, std::size_t(300000)}) {
            void *p = ::operator new(n, a);
            check_block(p, n, align, "operator new(align)");
            ::operator delete(p, n, a); // sized aligned delete
            p = ::operator new[](n, a, std::nothrow);
            check_block(p, n, align, "operator new[](align, nothrow)");
            ::operator delete[](p, a);
        }
    }
}

// 1 if allocate() throws std::bad_alloc (what it returns, if anything, leaks:
// it cannot be freed with the matching form here, and it is a failure anyway).
template <class F> int throws_bad_alloc(F allocate)
{
    try {
        void *p = allocate();
        CONF_ESCAPE(p);
        CHECKF(false, "allocation of a huge size returned %p", p);
    } catch (const std::bad_alloc &) {
        return 1;
    }
    return 0;
}

void test_failures()
{
    const std::size_t huge = huge_size;
    std::set_new_handler(nullptr);
    CHECK(::operator new(huge, std::nothrow) == nullptr);
    CHECK(::operator new[](huge, std::nothrow) == nullptr);
    CHECK(::operator new(huge, std::align_val_t{256}, std::nothrow) == nullptr);
    char *arr = new (std::nothrow) char[huge];
    CONF_ESCAPE(arr);
    CHECK(arr == nullptr);
    delete[] arr;

    int caught = throws_bad_alloc([=] { return ::operator new(huge); }) +
                 throws_bad_alloc([=] { return new char[huge]; }) +
                 throws_bad_alloc([=] { return ::operator new[](huge, std::align_val_t{4096}); });
    CHECKF(caught == 3, "std::bad_alloc thrown %d of 3 times", caught);

    // the new_handler is called until it gives up (uninstalls itself)
    handler_calls = 0, handler_budget = 3;
    std::set_new_handler(counting_handler);
    bool threw = throws_bad_alloc([=] { return ::operator new(huge); });
    CHECKF(threw && handler_calls == 3, "new_handler called %d times (want 3), %s", handler_calls,
           threw ? "threw" : "did not throw");
    // nothrow forms return nullptr without consulting it (cxx_new.h)
    handler_calls = 0, handler_budget = 1000;
    std::set_new_handler(counting_handler);
    CHECK(::operator new(huge, std::nothrow) == nullptr && handler_calls == 0);
    std::set_new_handler(nullptr);
    void *ok = ::operator new(64); // and the allocator still works
    check_block(ok, 64, 16, "operator new after failures");
    ::operator delete(ok);
}

} // namespace

int main()
{
    if (!conf_require_mortise(1))
        return conf_report();
    // the operators this program calls are Mortise's
    void *(*plain)(std::size_t) = &::operator new;
    void (*del)(void *) noexcept = &::operator delete;
    void *(*aligned)(std::size_t, std::align_val_t) = &::operator new[];
    CHECK(conf_in_mortise("operator new", reinterpret_cast<void *>(plain)));
    CHECK(conf_in_mortise("operator delete", reinterpret_cast<void *>(del)));
    CHECK(conf_in_mortise("operator new[](align_val_t)", reinterpret_cast<void *>(aligned)));
    test_plain();
    test_aligned();
    test_failures();
    return conf_report();
}
