"""Maintainer tools for the course (not imported by notebooks)."""
