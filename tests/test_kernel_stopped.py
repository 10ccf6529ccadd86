"""The line a learner sees after the memory limit stopped a kernel (lessons_lib/kernel_stopped.py)."""

from pathlib import Path

from lessons_lib import kernel_stopped


def groups(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cgroup"
    path.write_text(text)
    return path


def test_the_count_is_read_from_a_v1_memory_group(tmp_path):
    folder = tmp_path / "memory" / "job" / "lessons-class-8000" / "ada"
    folder.mkdir(parents=True)
    (folder / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    cgroup = groups(tmp_path, "5:devices:/\n4:memory:/job/lessons-class-8000/ada\n1:cpu:/\n")
    assert kernel_stopped.oom_kills(cgroup, root=tmp_path) == 2


def test_the_count_is_read_from_a_v2_group(tmp_path):
    folder = tmp_path / "lessons-class-8000" / "ada"
    folder.mkdir(parents=True)
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\n")
    cgroup = groups(tmp_path, "0::/lessons-class-8000/ada\n")
    assert kernel_stopped.oom_kills(cgroup, root=tmp_path) == 1


def test_outside_a_memory_group_there_is_no_count(tmp_path):
    assert kernel_stopped.oom_kills(groups(tmp_path, "0::/\n"), root=tmp_path) is None
    assert kernel_stopped.oom_kills(tmp_path / "absent", root=tmp_path) is None


def test_only_a_count_grown_since_the_last_kernel_looked_says_a_kernel_was_stopped(tmp_path):
    runtime = tmp_path / "runtime"
    looks = [kernel_stopped.stopped_since_last_look(runtime, n) for n in (0, 0, 1, 1, None, 3)]
    assert looks == [False, False, True, False, False, True]


def test_the_line_names_the_limit_and_what_to_do():
    assert kernel_stopped.hint(str(2 << 30)) == (
        "A kernel of yours was stopped: together your kernels reached your 2.0 GiB memory "
        "limit, and it held the most. Its variables are gone: run the cells above again "
        "(Run → Run All Above Selected Cell), with smaller tensors."
    )


class Events:
    def __init__(self):
        self.callbacks = []

    def register(self, event, callback):
        self.callbacks.append((event, callback))

    def unregister(self, event, callback):
        self.callbacks.remove((event, callback))


class Shell:
    def __init__(self):
        self.events = Events()


def test_the_first_cell_after_a_stop_prints_the_line_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("jupyter_core.paths.jupyter_runtime_dir", lambda: str(tmp_path))
    monkeypatch.setenv("MEM_LIMIT", str(2 << 30))
    counts = iter([0, 1])
    monkeypatch.setattr(kernel_stopped, "oom_kills", lambda: next(counts))
    first, after_a_stop = Shell(), Shell()
    kernel_stopped.arm(first)  # the first kernel: nothing stopped yet
    kernel_stopped.arm(after_a_stop)
    assert first.events.callbacks == []
    [(event, say_once)] = after_a_stop.events.callbacks
    assert event == "pre_run_cell"
    say_once(None)
    assert capsys.readouterr().out == kernel_stopped.hint(str(2 << 30)) + "\n"
    assert after_a_stop.events.callbacks == []


def test_without_a_declared_limit_nothing_is_armed(tmp_path, monkeypatch):
    monkeypatch.setattr("jupyter_core.paths.jupyter_runtime_dir", lambda: str(tmp_path))
    monkeypatch.delenv("MEM_LIMIT", raising=False)
    monkeypatch.setattr(kernel_stopped, "oom_kills", lambda: 5)
    shell = Shell()
    kernel_stopped.arm(shell)
    assert shell.events.callbacks == [] and not (tmp_path / kernel_stopped.SEEN).exists()
