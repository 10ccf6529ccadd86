"""The exercise "Your own backward pass": Part 1 (cube.py, check_cube) and Part 2
(cube_grad.py, check_cube_grad); the answer, cube_grad, is in answers.py."""
