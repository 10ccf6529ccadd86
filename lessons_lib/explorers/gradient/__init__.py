"""The gradient explorer: forward, backward and the true gradient of one Function."""
