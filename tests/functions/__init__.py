"""Tests of lessons_lib/functions.py, the Function zoo, one family of Functions a module."""
