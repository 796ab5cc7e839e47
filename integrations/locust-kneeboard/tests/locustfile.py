"""The load the tests run: two user levels, 2 then 4, held LEVEL_S seconds each."""

import os

from locust import HttpUser, LoadTestShape, constant, task

import kneeboard_locust  # noqa: F401  (registers the plugin: that is all a user adds)

LEVEL_S = float(os.environ.get("LEVEL_S", "2.5"))


class Visitor(HttpUser):
    wait_time = constant(0.05)

    @task
    def home(self):
        self.client.get("/", name="home")


class TwoLevels(LoadTestShape):
    stages = [(LEVEL_S, 2), (2 * LEVEL_S, 4)]

    def tick(self):
        t = self.get_run_time()
        for until, users in self.stages:
            if t < until:
                return users, 100
        return None
