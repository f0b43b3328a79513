/* Temporary: public entry points not written yet. Removed as each lands. */
#include "dmxi.h"

dmx_status dmx_layout_create_block_cyclic(MPI_Comm comm, int64_t m, int64_t n, int64_t mb, int64_t nb, int prow, int pcol, char grid_order, int rsrc, int csrc, void *local, int64_t lld, dmx_layout **out)
{
    (void)comm;
    (void)m;
    (void)n;
    (void)mb;
    (void)nb;
    (void)prow;
    (void)pcol;
    (void)grid_order;
    (void)rsrc;
    (void)csrc;
    (void)local;
    (void)lld;
    (void)out;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_create_block_cyclic_mapped(MPI_Comm comm, int64_t m, int64_t n, int64_t mb, int64_t nb, int prow, int pcol, const int *grid_ranks, int rsrc, int csrc, void *local, int64_t lld, dmx_layout **out)
{
    (void)comm;
    (void)m;
    (void)n;
    (void)mb;
    (void)nb;
    (void)prow;
    (void)pcol;
    (void)grid_ranks;
    (void)rsrc;
    (void)csrc;
    (void)local;
    (void)lld;
    (void)out;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_create_custom(MPI_Comm comm, int64_t m, int64_t n, int64_t nrb, const int64_t *rowsplits, int64_t ncb, const int64_t *colsplits, const int *owners, int64_t nlocal, const dmx_block *blocks, dmx_layout **out)
{
    (void)comm;
    (void)m;
    (void)n;
    (void)nrb;
    (void)rowsplits;
    (void)ncb;
    (void)colsplits;
    (void)owners;
    (void)nlocal;
    (void)blocks;
    (void)out;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_create_view(const dmx_layout *parent, int64_t i0, int64_t j0, int64_t m, int64_t n, dmx_layout **out)
{
    (void)parent;
    (void)i0;
    (void)j0;
    (void)m;
    (void)n;
    (void)out;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_destroy(dmx_layout **layout)
{
    (void)layout;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_get_size(const dmx_layout *layout, int64_t *m, int64_t *n)
{
    (void)layout;
    (void)m;
    (void)n;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_get_num_local_blocks(const dmx_layout *layout, int64_t *nlocal)
{
    (void)layout;
    (void)nlocal;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_get_local_block(const dmx_layout *layout, int64_t k, int64_t *row0, int64_t *col0, int64_t *rows, int64_t *cols, void **data, int64_t *ld, dmx_order *order)
{
    (void)layout;
    (void)k;
    (void)row0;
    (void)col0;
    (void)rows;
    (void)cols;
    (void)data;
    (void)ld;
    (void)order;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_layout_rebind(dmx_layout *layout, void *local)
{
    (void)layout;
    (void)local;
    return DMX_ERR_UNSUPPORTED;
}

int dmx_layout_owner_of(const dmx_layout *layout, int64_t i, int64_t j)
{
    (void)layout;
    (void)i;
    (void)j;
    return -1;
}

dmx_status dmx_plan_create(int ntransforms, const dmx_transform *transforms, dmx_plan **out)
{
    (void)ntransforms;
    (void)transforms;
    (void)out;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_plan_execute(dmx_plan *plan)
{
    (void)plan;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_plan_set_scalars(dmx_plan *plan, int k, dmx_scalar alpha, dmx_scalar beta)
{
    (void)plan;
    (void)k;
    (void)alpha;
    (void)beta;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_plan_get_info(const dmx_plan *plan, dmx_plan_info *info)
{
    (void)plan;
    (void)info;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_plan_destroy(dmx_plan **plan)
{
    (void)plan;
    return DMX_ERR_UNSUPPORTED;
}

dmx_status dmx_transform_once(dmx_dtype dtype, dmx_op op, dmx_scalar alpha, const dmx_layout *b, dmx_scalar beta, dmx_layout *a)
{
    (void)dtype;
    (void)op;
    (void)alpha;
    (void)b;
    (void)beta;
    (void)a;
    return DMX_ERR_UNSUPPORTED;
}
