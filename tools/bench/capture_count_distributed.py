"""``torch.distributed`` collectives in traced code for ``capture_count.py`` (``--only distributed``): the list
forms of ``all_gather`` / ``reduce_scatter`` / ``all_to_all``, ``all_to_all_single`` (even, and with
Python-int split sizes), the legacy ``_all_gather_base`` / ``_reduce_scatter_base`` aliases, results written
into a list the caller passed, and ``async_op=True`` (still a break). Each runs on a one-rank gloo group
(a ``HashStore``, no sockets) set up by ``extra_args`` before the call, outside the compiled code."""

from __future__ import annotations

import torch
import torch.distributed as dist


def _group():
    if not dist.is_initialized():
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    return ()


def _with_group(fn):
    fn.extra_args = _group
    return fn


@_with_group
def c_dist_all_gather_list(x):
    gathered = [torch.empty_like(x) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, x * 2)
    return gathered[0] + 1, gathered


@_with_group
def c_dist_all_gather_list_scalars(x):
    gathered = [torch.empty(())]
    dist.all_gather(gathered, x.sum())
    return gathered


@_with_group
def c_dist_reduce_scatter_list(x):
    out = torch.empty_like(x)
    dist.reduce_scatter(out, [x * 3], op=dist.ReduceOp.MAX)
    return out.sin()


@_with_group
def c_dist_all_to_all_single(x):
    out = torch.empty_like(x)
    dist.all_to_all_single(out, x + 1)
    return out * 2


@_with_group
def c_dist_all_to_all_single_splits(x):
    out = torch.empty(4, 2)
    dist.all_to_all_single(out, torch.arange(8.0).reshape(4, 2) + x[0], [4], [4])
    return out


@_with_group
def c_dist_all_to_all_list(x):
    out = [torch.empty(2, 3)]
    dist.all_to_all(out, [x.expand(2, 3) * 2])
    return out


@_with_group
def c_dist_legacy_aliases(x):
    gathered = torch.empty_like(x)
    dist._all_gather_base(gathered, x * 2)
    scattered = torch.empty_like(x)
    dist._reduce_scatter_base(scattered, gathered + 1)
    return gathered, scattered


def _user_list():
    _group()
    return ([torch.zeros(3)],)


def c_dist_all_gather_into_callers_list(x, gathered):
    dist.all_gather(gathered, x - 1)
    return gathered[0] * 2


c_dist_all_gather_into_callers_list.extra_args = _user_list


@_with_group
def c_dist_all_to_all_single_async(x):
    out = torch.empty_like(x)
    dist.all_to_all_single(out, x + 1, async_op=True).wait()  # a work handle: a graph break, run natively
    return out * 3


CONSTRUCTS = [c_dist_all_gather_list, c_dist_all_gather_list_scalars, c_dist_reduce_scatter_list,
              c_dist_all_to_all_single, c_dist_all_to_all_single_splits, c_dist_all_to_all_list,
              c_dist_legacy_aliases, c_dist_all_gather_into_callers_list, c_dist_all_to_all_single_async]
