from . import _framehook
