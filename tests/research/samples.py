"""Seeded float64 samples shared by the research tests."""

import torch

F64 = torch.float64


def sample(*shape, seed=0, requires_grad=True):
    """A seeded float64 tensor, a leaf that requires grad."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=F64).requires_grad_(requires_grad)


def contraction(n, norm=0.5, seed=1):
    """A random n x n float64 matrix with spectral norm `norm` < 1."""
    a = sample(n, n, seed=seed, requires_grad=False)
    return (norm * a / torch.linalg.matrix_norm(a, 2)).requires_grad_(True)
