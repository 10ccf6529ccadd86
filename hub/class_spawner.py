"""Each learner's server as their own Unix user, held to the class's limits (hub/class_cgroups.py).

LocalProcessSpawner starts the server; this one first makes the learner's control group
with the spawner's mem_limit and cpu_limit (as SystemdSpawner turns them into MemoryMax and
CPUQuota), and the server joins it before it runs, so its kernels and terminals, started
by it, are in it too. When the server stops, anything left in the group is stopped and
the group removed.
"""

import asyncio

from jupyterhub.spawner import LocalProcessSpawner


class ClassSpawner(LocalProcessSpawner):
    """LocalProcessSpawner, each learner's server in a control group of its own."""

    controller = None  # a class_cgroups.Controller, set by the hub's config; None: no limits
    group = None

    async def start(self):
        if self.controller is not None:
            self.group = await asyncio.to_thread(
                self.controller.learner, self.user.name, self.mem_limit, self.cpu_limit
            )
        return await super().start()

    def make_preexec_fn(self, name):
        become_the_learner = super().make_preexec_fn(name)
        group = self.group

        def preexec():
            if group is not None:
                group.join()  # as root, before the server becomes the learner
            become_the_learner()

        return preexec

    async def stop(self, now=False):
        await super().stop(now=now)
        if self.group is not None:
            await asyncio.to_thread(self.group.remove)
            self.group = None
