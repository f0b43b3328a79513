/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dmx.hpp
 * @brief A header-only C++17 face of dmx: handles that free themselves, exceptions for errors.
 *
 * Each handle (dmx::layout, dmx::plan, dmx::gemm_plan, dmx::grid, dmx::rma_heap, dmx::patch,
 * dmx::exchange_result, dmx::relabel_volume) owns one C object, is movable and not copyable,
 * and destroys the object when it goes out of scope (or on reset()); get() gives the C pointer
 * for any call of dmx.h this header does not wrap, release() hands it over. A failing call
 * throws dmx::error, which carries the dmx_status and dmx_last_error()'s message.
 *
 * Collective destroys (plans of the multiply, grids, heaps, patch windows) stay collective: let
 * such handles end in the same order on every rank. Destructors never throw (a failed destroy is
 * ignored there; call reset() to see its error). Destroy plans before the layouts they borrow:
 * declare layouts first, so that they end last.
 *
 * The C API stays the reference (dmx.h and the docs); this header adds no behaviour.
 */
#ifndef DMX_HPP
#define DMX_HPP

#include "dmx.h"

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dmx
{

/** A dmx call that did not return DMX_SUCCESS: its status and the library's message. */
class error : public std::runtime_error
{
  public:
    error(dmx_status st, const char *call)
        : std::runtime_error(std::string(call) + ": " + dmx_status_string(st) + ": " +
                             (dmx_last_error() ? dmx_last_error() : "")),
          status_(st)
    {
    }
    dmx_status status() const noexcept
    {
        return status_;
    }

  private:
    dmx_status status_;
};

/** Throw dmx::error unless @p st is DMX_SUCCESS; @p call names the call in the message. */
inline void check(dmx_status st, const char *call)
{
    if (st != DMX_SUCCESS)
        throw error(st, call);
}

/** The element type of a C++ type: float, double, std::complex<float>, std::complex<double>. */
template <class T> constexpr dmx_dtype dtype_of();
template <> constexpr dmx_dtype dtype_of<float>()
{
    return DMX_FLOAT;
}
template <> constexpr dmx_dtype dtype_of<double>()
{
    return DMX_DOUBLE;
}
template <> constexpr dmx_dtype dtype_of<std::complex<float>>()
{
    return DMX_CFLOAT;
}
template <> constexpr dmx_dtype dtype_of<std::complex<double>>()
{
    return DMX_CDOUBLE;
}

/** A dmx_scalar from a real or complex number. */
inline dmx_scalar scalar(double re, double im = 0.0)
{
    return dmx_scalar{re, im};
}
inline dmx_scalar scalar(std::complex<double> z)
{
    return dmx_scalar{z.real(), z.imag()};
}

namespace detail
{
/** Owner of one C object T, freed by Destroy(&p) (NULL-safe, sets p to NULL). Move-only. */
template <class T, dmx_status (*Destroy)(T **)> class handle
{
  public:
    handle() noexcept = default;
    explicit handle(T *p) noexcept : p_(p) {}
    handle(const handle &) = delete;
    handle &operator=(const handle &) = delete;
    handle(handle &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    handle &operator=(handle &&o) noexcept
    {
        if (this != &o) {
            T *old = std::exchange(p_, std::exchange(o.p_, nullptr));
            Destroy(&old);
        }
        return *this;
    }
    ~handle()
    {
        Destroy(&p_);
    }

    T *get() const noexcept
    {
        return p_;
    }
    explicit operator bool() const noexcept
    {
        return p_ != nullptr;
    }
    /** Give up ownership: the caller destroys the object. */
    T *release() noexcept
    {
        return std::exchange(p_, nullptr);
    }
    /** Destroy the object now (throws dmx::error if that fails). */
    void reset()
    {
        check(Destroy(&p_), "destroy");
    }

  private:
    T *p_ = nullptr;
};
} // namespace detail

/** A distributed matrix layout (dmx/layout.h). Layouts borrow their communicator and memory. */
class layout : public detail::handle<dmx_layout, dmx_layout_destroy>
{
  public:
    using handle::handle;

    /** ScaLAPACK's block-cyclic layout; see dmx_layout_create_block_cyclic. Collective. */
    static layout block_cyclic(MPI_Comm comm, std::int64_t m, std::int64_t n, std::int64_t mb,
                               std::int64_t nb, int prow, int pcol, char grid_order, int rsrc,
                               int csrc, void *local, std::int64_t lld)
    {
        dmx_layout *p = nullptr;
        check(dmx_layout_create_block_cyclic(comm, m, n, mb, nb, prow, pcol, grid_order, rsrc, csrc,
                                             local, lld, &p),
              "dmx_layout_create_block_cyclic");
        return layout(p);
    }

    /** Row and column splits with an owner per block; see dmx_layout_create_custom. */
    static layout custom(MPI_Comm comm, std::int64_t m, std::int64_t n,
                         const std::vector<std::int64_t> &rowsplits,
                         const std::vector<std::int64_t> &colsplits, const std::vector<int> &owners,
                         const std::vector<dmx_block> &blocks)
    {
        dmx_layout *p = nullptr;
        check(dmx_layout_create_custom(comm, m, n, (std::int64_t)rowsplits.size() - 1,
                                       rowsplits.data(), (std::int64_t)colsplits.size() - 1,
                                       colsplits.data(), owners.data(), (std::int64_t)blocks.size(),
                                       blocks.data(), &p),
              "dmx_layout_create_custom");
        return layout(p);
    }

    /** Each rank's own rectangles only; see dmx_layout_create_local. Collective. */
    static layout local(MPI_Comm comm, std::int64_t m, std::int64_t n,
                        const std::vector<dmx_local_block> &blocks)
    {
        dmx_layout *p = nullptr;
        check(dmx_layout_create_local(comm, m, n, (std::int64_t)blocks.size(), blocks.data(), &p),
              "dmx_layout_create_local");
        return layout(p);
    }

    /** The m x n submatrix at (i0, j0) of @p parent; see dmx_layout_create_view. Collective. */
    static layout view(const layout &parent, std::int64_t i0, std::int64_t j0, std::int64_t m,
                       std::int64_t n)
    {
        dmx_layout *p = nullptr;
        check(dmx_layout_create_view(parent.get(), i0, j0, m, n, &p), "dmx_layout_create_view");
        return layout(p);
    }

    std::int64_t rows() const
    {
        return size().first;
    }
    std::int64_t cols() const
    {
        return size().second;
    }
    std::pair<std::int64_t, std::int64_t> size() const
    {
        std::int64_t m = 0, n = 0;
        check(dmx_layout_get_size(get(), &m, &n), "dmx_layout_get_size");
        return {m, n};
    }
    /** Point a block-cyclic layout at another local array of the same shape. Local. */
    void rebind(void *local)
    {
        check(dmx_layout_rebind(get(), local), "dmx_layout_rebind");
    }
    /** The rank owning element (i, j) (-1: not known here); see dmx_layout_get_owner. Local. */
    int owner_of(std::int64_t i, std::int64_t j) const
    {
        int o = -1;
        check(dmx_layout_get_owner(get(), i, j, &o), "dmx_layout_get_owner");
        return o;
    }
};

/** One transform A = alpha*op(B) + beta*A (the whole matrix; set uplo/diag for a trapezoid). */
inline dmx_transform transform(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, const layout &b,
                               dmx_scalar beta, layout &a)
{
    return dmx_transform{dtype, op, alpha, beta, b.get(), a.get(), 0, 0};
}

/** A plan of a batch of transforms (dmx/plan.h). Borrows the layouts: destroy it first. */
class plan : public detail::handle<dmx_plan, dmx_plan_destroy>
{
  public:
    using handle::handle;
    /** Plan the batch; see dmx_plan_create. Collective. */
    explicit plan(const std::vector<dmx_transform> &batch) : handle(create(batch)) {}
    explicit plan(const dmx_transform &t) : plan(std::vector<dmx_transform>{t}) {}

    void execute()
    {
        check(dmx_plan_execute(get()), "dmx_plan_execute");
    }
    void set_scalars(int k, dmx_scalar alpha, dmx_scalar beta)
    {
        check(dmx_plan_set_scalars(get(), k, alpha, beta), "dmx_plan_set_scalars");
    }
    dmx_plan_info info() const
    {
        dmx_plan_info i{};
        check(dmx_plan_get_info(get(), &i), "dmx_plan_get_info");
        return i;
    }

  private:
    static dmx_plan *create(const std::vector<dmx_transform> &batch)
    {
        dmx_plan *p = nullptr;
        check(dmx_plan_create((int)batch.size(), batch.data(), &p), "dmx_plan_create");
        return p;
    }
};

/** Plan, run and free one transform; see dmx_transform_once. Collective. */
inline void transform_once(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, const layout &b,
                           dmx_scalar beta, layout &a)
{
    check(dmx_transform_once(dtype, op, alpha, b.get(), beta, a.get()), "dmx_transform_once");
}

/** A plan of C = alpha op(A) op(B) + beta C (dmx/gemm.h). Borrows the layouts. */
class gemm_plan : public detail::handle<dmx_gemm_plan, dmx_gemm_plan_destroy>
{
  public:
    using handle::handle;
    /** See dmx_gemm_plan_create; @p options may be NULL. Collective on @p comm. */
    gemm_plan(MPI_Comm comm, dmx_dtype dtype, dmx_op transa, dmx_op transb, dmx_scalar alpha,
              const layout &a, const layout &b, dmx_scalar beta, layout &c,
              const dmx_gemm_options *options = nullptr)
        : handle(create(comm, dtype, transa, transb, alpha, a, b, beta, c, options))
    {
    }
    void execute()
    {
        check(dmx_gemm_plan_execute(get()), "dmx_gemm_plan_execute");
    }
    dmx_gemm_info info() const
    {
        dmx_gemm_info i{};
        check(dmx_gemm_plan_get_info(get(), &i), "dmx_gemm_plan_get_info");
        return i;
    }

  private:
    static dmx_gemm_plan *create(MPI_Comm comm, dmx_dtype dtype, dmx_op transa, dmx_op transb,
                                 dmx_scalar alpha, const layout &a, const layout &b,
                                 dmx_scalar beta, layout &c, const dmx_gemm_options *options)
    {
        dmx_gemm_plan *p = nullptr;
        check(dmx_gemm_plan_create(comm, dtype, transa, transb, alpha, a.get(), b.get(), beta,
                                   c.get(), options, &p),
              "dmx_gemm_plan_create");
        return p;
    }
};

/** C = alpha op(A) op(B) + beta C once; see dmx_gemm. Collective on @p comm. */
inline void gemm(MPI_Comm comm, dmx_dtype dtype, dmx_op transa, dmx_op transb, dmx_scalar alpha,
                 const layout &a, const layout &b, dmx_scalar beta, layout &c,
                 const dmx_gemm_options *options = nullptr)
{
    check(dmx_gemm(comm, dtype, transa, transb, alpha, a.get(), b.get(), beta, c.get(), options),
          "dmx_gemm");
}

/** A process grid of the collectives (dmx/coll.h); destroy is collective. */
class grid : public detail::handle<dmx_grid, dmx_grid_destroy>
{
  public:
    using handle::handle;
    grid(MPI_Comm comm, int prow, int pcol, char order = 'R')
        : handle(create(comm, prow, pcol, order))
    {
    }

  private:
    static dmx_grid *create(MPI_Comm comm, int prow, int pcol, char order)
    {
        dmx_grid *g = nullptr;
        check(dmx_grid_create(comm, prow, pcol, order, &g), "dmx_grid_create");
        return g;
    }
};

/** A symmetric heap of one-sided transfers (dmx/rma.h); freeing is collective. */
class rma_heap : public detail::handle<dmx_rma_heap, dmx_rma_free>
{
  public:
    using handle::handle;
    /** dmx_rma_alloc: @p bytes of zeroed memory on every rank. Collective on @p comm. */
    static rma_heap alloc(MPI_Comm comm, std::int64_t bytes)
    {
        dmx_rma_heap *h = nullptr;
        check(dmx_rma_alloc(comm, bytes, &h), "dmx_rma_alloc");
        return rma_heap(h);
    }
    /** dmx_rma_attach: the caller's memory (borrowed). Collective on @p comm. */
    static rma_heap attach(MPI_Comm comm, void *base, std::int64_t bytes)
    {
        dmx_rma_heap *h = nullptr;
        check(dmx_rma_attach(comm, base, bytes, &h), "dmx_rma_attach");
        return rma_heap(h);
    }
    void *base() const
    {
        void *b = nullptr;
        check(dmx_rma_get_base(get(), &b), "dmx_rma_get_base");
        return b;
    }
    std::int64_t size() const
    {
        std::int64_t s = 0;
        check(dmx_rma_get_size(get(), &s), "dmx_rma_get_size");
        return s;
    }
};

/** One-sided access to a layout's blocks (dmx_patch_open); closing is collective. */
class patch : public detail::handle<dmx_patch, dmx_patch_close>
{
  public:
    using handle::handle;
    patch(const layout &l, dmx_dtype dtype) : handle(create(l, dtype)) {}
    void get_block(std::int64_t i0, std::int64_t j0, std::int64_t m, std::int64_t n, void *buf,
                   std::int64_t ld, dmx_op op = DMX_OP_N)
    {
        check(dmx_patch_get(get(), i0, j0, m, n, buf, ld, op), "dmx_patch_get");
    }
    void put_block(std::int64_t i0, std::int64_t j0, std::int64_t m, std::int64_t n,
                   const void *buf, std::int64_t ld, dmx_op op = DMX_OP_N)
    {
        check(dmx_patch_put(get(), i0, j0, m, n, buf, ld, op), "dmx_patch_put");
    }
    void acc_block(std::int64_t i0, std::int64_t j0, std::int64_t m, std::int64_t n,
                   const void *buf, std::int64_t ld, dmx_op op = DMX_OP_N)
    {
        check(dmx_patch_acc(get(), i0, j0, m, n, buf, ld, op), "dmx_patch_acc");
    }
    void quiet()
    {
        check(dmx_patch_quiet(get()), "dmx_patch_quiet");
    }
    void barrier()
    {
        check(dmx_patch_barrier(get()), "dmx_patch_barrier");
    }

  private:
    static dmx_patch *create(const layout &l, dmx_dtype dtype)
    {
        dmx_patch *w = nullptr;
        check(dmx_patch_open(l.get(), dtype, &w), "dmx_patch_open");
        return w;
    }
};

/** What a sparse data exchange received (dmx/exchange.h); local. */
using exchange_result = detail::handle<dmx_exchange_result, dmx_exchange_result_destroy>;
/** Package volumes between two layouts (dmx/relabel.h); local. */
using relabel_volume = detail::handle<dmx_relabel_volume, dmx_relabel_volume_destroy>;

} // namespace dmx

#endif /* DMX_HPP */
