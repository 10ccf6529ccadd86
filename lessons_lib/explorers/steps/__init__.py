"""The step explorer: how big a nudge a finite difference should take, per dtype."""
