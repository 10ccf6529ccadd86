"""The gradient doctor: check_function examines a learner's Function and reports in plain English."""

from lessons_lib.doctor.examination import Report, check_function

__all__ = ["Report", "check_function"]
