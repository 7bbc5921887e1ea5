"""The model zoo: small configurations of torchvision, diffusers and timm models, random weights, no downloads.

Shared by ``tests/test_model_zoo.py`` (each model in one graph, eager's answer, no recompile) and
``tools/bench/model_zoo_bench.py`` (loom beside torch.compile). Each entry keeps the classes and the code
paths of the real model (shifted windows, squeeze-excitation, relative position bias, cross attention,
``BaseOutput`` returns) with a few channels and layers, so a compile takes seconds, not minutes.

torchvision from the registry is built against the CUDA build of torch, and timm and diffusers import it:
where it does not import (CPython 3.11's CPU wheel), :func:`unavailable_reason` says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class ZooModel:
    """One model of the zoo: how to build it and its inputs, and which library it comes from."""

    library: str
    build: Callable[[], torch.nn.Module]
    inputs: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]


def unavailable_reason() -> str | None:
    """Why the zoo's libraries do not import here, or None when torchvision, timm and diffusers all do."""
    try:
        import diffusers  # noqa: F401
        import timm  # noqa: F401
        import torchvision  # noqa: F401
    except Exception as error:  # a CUDA-built torchvision fails with OSError or RuntimeError too
        return (f"torchvision/timm/diffusers do not import with this torch ({torch.__version__}; the registry's "
                f"torchvision needs torch's CUDA build): {type(error).__name__}: {str(error).partition(chr(10))[0]}")
    return None


def _image(channels: int = 3, size: int = 32, batch: int = 2) -> Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]:
    return lambda: ((torch.randn(batch, channels, size, size),), {})


# -- torchvision ------------------------------------------------------------------------------------------
def _resnet() -> torch.nn.Module:
    from torchvision.models.resnet import BasicBlock, ResNet
    return ResNet(BasicBlock, [1, 1, 1, 1], num_classes=10, width_per_group=64)


def _mobilenet_v3() -> torch.nn.Module:
    from torchvision.models import mobilenet_v3_small
    return mobilenet_v3_small(num_classes=10, width_mult=0.25)


def _efficientnet() -> torch.nn.Module:
    from torchvision.models.efficientnet import EfficientNet, MBConvConfig
    setting = [MBConvConfig(1, 3, 1, 16, 8, 1), MBConvConfig(6, 3, 2, 8, 16, 2), MBConvConfig(6, 5, 2, 16, 24, 1)]
    return EfficientNet(setting, dropout=0.2, num_classes=10)


def _swin() -> torch.nn.Module:
    from torchvision.models.swin_transformer import SwinTransformer
    # 32x32 -> 8x8 patches, windows of 4 shifted by 2: the shifted-window mask and its padding run.
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                           num_classes=10)


def _swin_v2() -> torch.nn.Module:
    from torchvision.models.swin_transformer import PatchMergingV2, SwinTransformer, SwinTransformerBlockV2
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                           num_classes=10, block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2)


def _maxvit() -> torch.nn.Module:
    from torchvision.models.maxvit import MaxVit
    return MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[16, 32],
                  block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.2, num_classes=10)


def _vit() -> torch.nn.Module:
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                             num_classes=10)


# -- diffusers --------------------------------------------------------------------------------------------
def _unet2d() -> torch.nn.Module:
    from diffusers import UNet2DModel
    return UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
                       block_out_channels=(8, 16), norm_num_groups=4, attention_head_dim=4,
                       down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                       up_block_types=("AttnUpBlock2D", "UpBlock2D"))


def _unet2d_inputs() -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (torch.randn(2, 3, 16, 16), torch.tensor([10, 500])), {}


def _unet2d_condition() -> torch.nn.Module:
    from diffusers import UNet2DConditionModel
    return UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
                                block_out_channels=(8, 16), norm_num_groups=4, cross_attention_dim=8,
                                attention_head_dim=2,
                                down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"))


def _unet2d_condition_inputs() -> tuple[tuple[Any, ...], dict[str, Any]]:
    return (torch.randn(2, 4, 16, 16), torch.tensor([10, 500])), {"encoder_hidden_states": torch.randn(2, 6, 8)}


def _autoencoder_kl() -> torch.nn.Module:
    from diffusers import AutoencoderKL
    return AutoencoderKL(in_channels=3, out_channels=3, latent_channels=4, layers_per_block=1,
                         block_out_channels=(8, 16), norm_num_groups=4,
                         down_block_types=("DownEncoderBlock2D",) * 2, up_block_types=("UpDecoderBlock2D",) * 2)


def _autoencoder_kl_inputs() -> tuple[tuple[Any, ...], dict[str, Any]]:
    # sample_posterior=False: the posterior's mode, not a random draw, so eager and compiled agree.
    return (torch.randn(2, 3, 16, 16),), {}


# -- timm -------------------------------------------------------------------------------------------------
def _timm(name: str, **kwargs: Any) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import timm
        return timm.create_model(name, pretrained=False, num_classes=10, **kwargs)
    return build


MODELS: dict[str, ZooModel] = {
    "tv-resnet": ZooModel("torchvision", _resnet, _image()),
    "tv-mobilenet-v3": ZooModel("torchvision", _mobilenet_v3, _image()),
    "tv-efficientnet": ZooModel("torchvision", _efficientnet, _image()),
    "tv-swin": ZooModel("torchvision", _swin, _image()),
    "tv-swin-v2": ZooModel("torchvision", _swin_v2, _image()),
    "tv-maxvit": ZooModel("torchvision", _maxvit, _image()),
    "tv-vit": ZooModel("torchvision", _vit, _image()),
    "df-unet2d": ZooModel("diffusers", _unet2d, _unet2d_inputs),
    "df-unet2d-condition": ZooModel("diffusers", _unet2d_condition, _unet2d_condition_inputs),
    "df-autoencoder-kl": ZooModel("diffusers", _autoencoder_kl, _autoencoder_kl_inputs),
    "timm-resnet": ZooModel("timm", _timm("resnet10t"), _image()),
    "timm-vit": ZooModel("timm", _timm("vit_tiny_patch16_224", img_size=32, patch_size=8, depth=2), _image()),
    "timm-convnext": ZooModel("timm", _timm("convnext_atto", depths=(1, 1, 1, 1)), _image()),
}


def _stock(name: str, size: int = 224) -> ZooModel:
    def build() -> torch.nn.Module:
        import torchvision
        return torchvision.models.get_model(name, weights=None)
    return ZooModel("torchvision", build, _image(size=size, batch=1))


#: The stock configurations the issue measured (``model_zoo_bench.py --full``): minutes on a small CPU.
FULL_SIZE: dict[str, ZooModel] = {
    "tv-efficientnet_b0": _stock("efficientnet_b0"),
    "tv-swin_t": _stock("swin_t"),
    "tv-maxvit_t": _stock("maxvit_t"),
    "tv-vit_b_16": _stock("vit_b_16"),
}


def first_tensor(output: Any) -> torch.Tensor:
    """The first tensor of a model's output: a tensor, a tuple's first item, a ``BaseOutput``'s first field."""
    while not isinstance(output, torch.Tensor):
        output = output[0]
    return output
