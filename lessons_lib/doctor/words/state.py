"""The words for what a Function changes in place or keeps: its input, saved tensors, grad_out, ctx."""

from lessons_lib.doctor.findings import Finding
from lessons_lib.running import SavedChange


def mutates_input(names: list[str]) -> Finding:
    return Finding(
        "mutates-input",
        f"forward changed its input {', '.join(names)} in place.",
        "The caller's tensor silently changes, and any gradient that needs its old value is "
        "corrupted. A change made through .data or NumPy also slips past the version counter, "
        "so not even saved_tensors can notice it.",
        "Compute a new tensor (x * 2, not x.mul_(2) or x.data.mul_(2)); if in place is truly "
        "needed, change x with torch ops, call ctx.mark_dirty(x) and return x.",
    )


def mutates_saved(change: SavedChange, names: list[str], evidence: tuple[str, ...]) -> Finding:
    kind, index = change.role or ("", 0)
    if kind == "input":
        tensor = f"the saved input {names[index]}"
        lands = (
            f"It lands on the caller's own tensor: {names[index]} silently holds the new numbers "
            "afterwards, and whatever reads it next (optimizer.step(), say) uses them."
        )
    elif kind == "output":
        tensor = "the saved output" if index == 0 else f"the saved output {index}"
        lands = (
            "It lands on your Function's output, which the caller holds: whatever reads that "
            "output next sees the new numbers."
        )
    else:
        tensor = f"a tensor made in forward and saved (argument {change.position + 1} of "
        tensor += "save_for_backward)"
        lands = "Nothing else holds this tensor, so nothing else changes now."
    if change.counted:
        later = (
            'Only a later backward that needs the same tensor raises ("modified by an inplace '
            'operation"): a second backward through this graph, or another step that saved it '
            "and runs after yours."
        )
    else:
        later = (
            "The change went around the version counter (.data or NumPy), so not even a second "
            "backward through this graph notices: it silently computes with the changed values."
        )
    return Finding(
        "mutates-saved",
        f"backward changed {tensor} in place.",
        "In one training step nothing raises: autograd checks a saved tensor's version when "
        f"backward reads ctx.saved_tensors, and your change comes after that. {lands} {later}",
        "Compute out of place: x.pow(2) or x * x, not x.pow_(2), x.mul_(...) or x *= ...; leave "
        "every saved tensor as forward saved it.",
        evidence,
    )


def mutates_grad_out(outputs: str, evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "mutates-grad-out",
        f"backward changed grad_out{outputs} in place.",
        "grad_out is not yours to change: autograd may hand the same tensor to another step "
        "that runs later (the other input of an addition, say), or it is the caller's own "
        "tensor (the g in y.backward(g)); either way, they then read your numbers instead of "
        "theirs.",
        "Compute a new tensor: return grad_out * (local derivative), not grad_out.mul_(...) "
        "or grad_out *= ...",
        evidence,
    )


def ctx_tensor(names: list[str]) -> Finding:
    stored = ", ".join(f"ctx.{n}" for n in names)
    return Finding(
        "ctx-tensor",
        f"A tensor is stored as a plain attribute ({stored}) instead of through save_for_backward.",
        "It may give the right numbers today, but it skips the official route: the version "
        "check that catches a saved tensor changed in place before backward, and saved-tensor "
        "hooks (torch.autograd.graph.saved_tensors_hooks, which activation checkpointing and "
        "CPU offloading use) never see it. A stashed output also forms a reference cycle "
        "(output → grad_fn → ctx → output), so its memory is held until Python's garbage "
        "collector runs rather than freed at once.",
        "Save tensors with ctx.save_for_backward(x) and read them with ctx.saved_tensors; "
        "only non-tensors (numbers, shapes, flags) belong on ctx attributes.",
    )


def frozen_input(
    name: str, others: list[str], what: str, evidence: tuple[str, ...] = ()
) -> Finding:
    return Finding(
        "frozen-input",
        f"With {name} alone requiring grad ({', '.join(others)} frozen, as a frozen weight is), "
        f"{what}.",
        "Part of a model is often frozen (fine-tuning, a fixed embedding): the Function is then "
        "called with inputs that do not require grad, and its gradient for the others must "
        "not change.",
        "ctx.needs_input_grad[i] says whether input i of forward needs a gradient, by position "
        "(0 for the first input, 1 for the second): compute each gradient under its own "
        "index, and return None for an input that needs none. gradcheck with one input "
        "frozen (requires_grad=False) shows this mistake too.",
        evidence,
    )
