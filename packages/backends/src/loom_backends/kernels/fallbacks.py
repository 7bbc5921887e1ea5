"""The one table of ops loom's kernel backends deliberately leave to ATen (extern calls).

These run as calls to ATen from the generated host code, with their inputs stored in buffers and their
outputs read by the kernels around them through their real strides. Any op that has no lowering rule
(see ``lowering/``), or whose rule declines particular arguments (complex dtypes, data-dependent
shapes, ...), is also run this way: the table lists the ones that are meant to stay extern.
"""

from __future__ import annotations

from typing import Any

# op (overload packet) -> why it is an extern call
FALLBACKS: dict[str, str] = {
    # Matrix products and convolutions: vendor libraries (cuBLAS/cuDNN, MKL on the CPU) beat a
    # simple generated kernel; pointwise work around them still fuses into loom kernels.
    "aten.mm": "matrix multiply (BLAS)",
    "aten.bmm": "batched matrix multiply (BLAS)",
    "aten.addmm": "matrix multiply with bias (BLAS)",
    "aten.baddbmm": "batched matrix multiply with bias (BLAS)",
    "aten.convolution": "convolution (cuDNN / oneDNN)",
    "aten.convolution_backward": "convolution backward (cuDNN / oneDNN)",
    "aten._scaled_dot_product_efficient_attention": "fused attention kernel",
    "aten._scaled_dot_product_flash_attention": "fused attention kernel",
    "aten._scaled_dot_product_flash_attention_for_cpu": "fused attention kernel",
    "aten._scaled_dot_product_efficient_attention_backward": "fused attention kernel",
    "aten._scaled_dot_product_flash_attention_backward": "fused attention kernel",
    "aten._scaled_dot_product_flash_attention_for_cpu_backward": "fused attention kernel",
    # Random numbers: ATen's generator keeps the same streams as eager.
    "aten.rand": "random numbers (ATen generator)",
    "aten.randn": "random numbers (ATen generator)",
    "aten.randint": "random numbers (ATen generator)",
    "aten.rand_like": "random numbers (ATen generator)",
    "aten.randn_like": "random numbers (ATen generator)",
    "aten.bernoulli": "random numbers (ATen generator)",
    "aten.native_dropout": "random mask (ATen generator)",
    "aten.randperm": "random permutation",
    # Sorting, scans and data-dependent shapes.
    "aten.sort": "sort",
    "aten.topk": "top-k selection",
    "aten.cumsum": "scan",
    "aten.cumprod": "scan",
    "aten.nonzero": "data-dependent output shape",
    "aten._local_scalar_dense": "reads a tensor value back to Python",
    # Scatters and other writes through computed indices.
    "aten.index_put": "scatter (writes through indices)",
    "aten.scatter": "scatter",
    "aten.scatter_add": "scatter",
    "aten.scatter_reduce": "scatter",
    "aten.embedding_dense_backward": "scatter-add of gradients",
    "aten.index_add": "scatter-add",
    # Pooling and other windowed ops.
    "aten.max_pool2d_with_indices": "windowed reduction",
    "aten.max_pool2d_with_indices_backward": "windowed scatter",
    "aten.avg_pool2d": "windowed reduction",
    "aten.avg_pool2d_backward": "windowed scatter",
    "aten._adaptive_avg_pool2d": "windowed reduction",
    "aten._adaptive_avg_pool2d_backward": "windowed scatter",
    "aten.upsample_nearest2d": "resampling",
    "aten.upsample_bilinear2d": "resampling",
    # Allocation without contents: nothing to compute.
    "aten.empty": "uninitialised allocation",
    "aten.empty_strided": "uninitialised allocation",
    "aten.empty_like": "uninitialised allocation",
}


def packet_name(target: Any) -> str:
    packet = getattr(target, "overloadpacket", None)
    return str(packet) if packet is not None else getattr(target, "__name__", str(target))


def fallback_reason(target: Any) -> str | None:
    """Why ``target`` is an extern call by design (``None`` if it is not in the table)."""
    return FALLBACKS.get(packet_name(target))
