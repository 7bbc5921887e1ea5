"""Shared set-up for loom-symbolic's tests."""

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
