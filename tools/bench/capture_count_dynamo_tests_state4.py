"""Tensor attributes and torch's C state objects after PyTorch's test/dynamo/test_repros.py and test_misc.py, for
``capture_count.py --only dynamo_tests_state4``: ``_version`` after in-place ops (``test_vc_bumped_in_inference_graph``),
``.data`` reads and assignments (``test_tensor_set_data``, ``test_data_attr_mutation_after_saved_for_bw``,
``test_tensor_data``, ``test_grad``), the RNG's state and seeds (``test_rng_state``, ``test_torch_seed``,
``test_torch_generator_set_state``, ``test_dropout_inline``, ``fork_rng``), ``torch.Generator`` objects,
in-place view ops on inputs (``test_inplace_view_on_graph_input``, ``test_inplace_unsqueeze_input``), ``out=``
resizing, tensors' own attributes (``is_leaf``, ``_base``, a custom attribute) and slices bounded by tensor elements
(``test_slicing_dynamic_shape``). Each is written afresh over one tensor.
"""

from __future__ import annotations

import sys

import torch


# -- _version -----------------------------------------------------------------------------------------------
def c_st4_version_bumped_by_inplace_input(x):
    before = x._version
    x.mul_(2)
    return x, x._version - before


def c_st4_version_shared_with_view(x):
    t = x.clone()
    v = t[1:]
    v.add_(1)
    t.mul_(2)
    return t, v._version, t._version, t.detach()._version


def c_st4_version_decides_branch(x):
    t = x.clone()
    if t._version == 0:
        t.add_(1)
    if t._version > 0:
        return t * 2
    return t


def c_st4_version_kept_by_data_assignment(x):
    before = x._version
    x.data = x.clone() * 2
    return x + 1, x._version == before


def c_st4_version_of_out_argument(x):
    out = torch.empty(3)
    torch.add(x, 1, out=out)
    torch.mul(x, 2, out=out)
    return out, out._version


# -- .data ------------------------------------------------------------------------------------------------
def c_st4_set_data_then_shape(x, y):
    x.data = y
    y.data = torch.zeros([0])
    return x, x.shape, y.shape


c_st4_set_data_then_shape.extra_args = lambda: (torch.ones(6),)


def c_st4_set_data_identity_tensor(x, y):
    z = x
    x.data = y
    y.data = torch.zeros([0])
    return torch.tensor(x is z)


c_st4_set_data_identity_tensor.extra_args = lambda: (torch.ones(6),)


def c_st4_data_mutated_after_use(x):
    out = x.sin()
    x.data.mul_(2)
    return out, x


def c_st4_index_by_data(x, y):
    return x[y.data]


c_st4_index_by_data.extra_args = lambda: (torch.ones(3).to(torch.int),)


def c_st4_grad_slot_then_data(x, g):
    x._grad = g
    return x.grad.data * 2


c_st4_grad_slot_then_data.extra_args = lambda: (torch.full((3,), 0.5),)


# -- the global RNG's state and seeds -------------------------------------------------------------------------
def c_st4_rng_state_restored_same_draws(x):
    state = torch.get_rng_state()
    before = torch.rand(100)
    torch.set_rng_state(state)
    after = torch.rand(100)
    return x + 1, before, after


def c_st4_fork_rng_seeded_inside(x):
    with torch.random.fork_rng():
        torch.manual_seed(3)
        a = torch.randn(3)
    return x + a


def c_st4_dropout_after_manual_seed(x):
    torch.manual_seed(1337)
    return torch.nn.Dropout(0.1)(x)


def c_st4_seed_then_manual_seed(x):
    attention_seed = int(torch.seed() % sys.maxsize)
    torch.manual_seed(attention_seed % 1 + 3)  # (the test reseeds from torch.seed(); here the state ends fixed)
    return x + torch.rand(3), attention_seed >= 0


def c_st4_default_generator_state_methods(x):
    state = torch.default_generator.get_state()
    a = torch.rand([2, 3])
    torch.default_generator.set_state(state)
    b = torch.rand([2, 3])
    return x.sum() + a, b


def c_st4_initial_seed_read(x):
    return x + 1, torch.initial_seed()


def c_st4_private_state_query_checkpoint_valid(x):
    if torch.autograd._is_checkpoint_valid():
        return x * 2
    return x * 3


def c_st4_random_inplace_kwargs(x):
    torch.manual_seed(0)
    params = {"from": -10, "to": 10}
    return x.clone().random_(**params), torch.empty(2, 3).uniform_(**params)


# -- torch.Generator objects -----------------------------------------------------------------------------------
def c_st4_generator_made_and_seeded(x):
    g = torch.Generator().manual_seed(0)
    return x + torch.rand(3, generator=g), torch.randint(0, 5, (2,), generator=g)


def c_st4_generator_state_round_trip(x):
    g = torch.Generator()
    g.manual_seed(7)
    s = g.get_state()
    a = torch.randn(3, generator=g)
    g.set_state(s)
    return x + a - torch.randn(3, generator=g), g.initial_seed()


def c_st4_generator_handed_in(x, g):
    return x + torch.randperm(3, generator=g)


c_st4_generator_handed_in.extra_args = lambda: (torch.Generator().manual_seed(4),)
c_st4_generator_handed_in.calls = 2


def c_st4_generator_inplace_draw(x):
    g = torch.Generator().manual_seed(1)
    return x.clone().normal_(generator=g)


# -- in-place view ops and out= on inputs ---------------------------------------------------------------------
def c_st4_unsqueeze_inplace_input(x):
    x.unsqueeze_(0)
    return x + 1


def c_st4_inplace_view_chain_on_input(x):
    return x.view(1, 3).t_().mul_(2), x.detach_().mul_(2)


def c_st4_as_strided_inplace_input(x):
    return x.as_strided_((2,), (1,)).mul_(2)


def c_st4_out_resizes_input(x, y):
    return torch.cosh(x, out=y) + 1, y.shape


c_st4_out_resizes_input.extra_args = lambda: (torch.rand(4),)


def c_st4_unsqueeze_inplace_clone_cat(x):
    view_2 = x.clone()
    view_2.unsqueeze_(1)
    cat = torch.cat([view_2, view_2], dim=1)
    return cat.view(2, 3)


# -- tensors' own attributes ---------------------------------------------------------------------------------
def c_st4_custom_attribute_set_and_read(x):
    x.custom_attr = 3.14
    return x.custom_attr * x


def c_st4_leaf_flags(x):
    leaf = x.clone().requires_grad_()
    y = leaf * 2
    return y, leaf.is_leaf, y.is_leaf, y.requires_grad, leaf.retains_grad


def c_st4_base_of_view(x):
    t = x.clone()
    v = t[1:]
    return v + 1, v._base is t, t._base is None


def c_st4_requires_grad_attribute_set(x):
    z = x + 4
    x.requires_grad = True
    return x * z


def c_st4_leaf_made_with_requires_grad(x):
    leaf = torch.ones(2, requires_grad=True)
    return leaf, leaf * 2 + x.sum()


def c_st4_layout_device_dtype_reused(x):
    return torch.zeros([x.size()[0], 2], dtype=x.dtype, layout=x.layout, device=x.device) + x[0]


# -- slices bounded by tensor elements (torch.compile breaks as well) -------------------------------------------
def c_st4_slice_bound_from_input_element(x, lengths):
    y = torch.ones(8)
    idx = lengths[0]
    return (y[idx:] + 3) * 5 + x.sum()


c_st4_slice_bound_from_input_element.extra_args = lambda: (torch.tensor([4, 1]),)


def c_st4_slice_bound_known_value(x):
    y = torch.ones(8)
    idx = torch.tensor(2)
    return y[idx:] + x.sum()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
