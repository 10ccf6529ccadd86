"""The training explorer: one neuron trained with each surrogate, its loss curves compared."""
