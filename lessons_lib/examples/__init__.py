"""A complete pytest file for a custom Function, which lesson 2's developer track shows and runs.

It ships inside lessons_lib, with its own pytest.ini, so the notebook runs it wherever the
package is installed (a checkout, Binder, the class hub or Colab).
"""
