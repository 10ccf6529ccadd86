"""The class's environment counts as installed only once pip has finished (tools/class_env.py)."""

from tools.class_env import PINS_STAMP, installed, pins_digest


def test_an_environment_is_installed_only_with_a_stamp_of_the_current_pins(tmp_path):
    env = tmp_path / "env"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").touch()  # a venv whose install is under way: no stamp yet
    assert not installed(env)
    (env / PINS_STAMP).write_text("an older hash")
    assert not installed(env)
    (env / PINS_STAMP).write_text(pins_digest())
    assert installed(env)
