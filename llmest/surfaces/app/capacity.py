"""The calculator app's cap on kernels. Voila starts one kernel (about 100 MB) for every page load, anonymous ones
included: without a cap, repeated loads fill a class server's memory. ``voila.json`` beside this module makes
:class:`CappedKernelManager` Voila's kernel manager (``max_kernels`` kernels at most, and kernels that no page ever
connected to ended sooner than the others), and ``voila.py`` installs :func:`busy_page`, which answers a visitor
past the cap with a page that says the calculators are busy."""

import uuid

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from traitlets import Int, List, Unicode

RETRY_AFTER_S = 60
# An HTTP reason phrase is ASCII: the busy page of the hook below says it in both languages.
BUSY_REASON = "The calculators are busy: every page is taken. Please try again in a few minutes"
BUSY_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="{retry}">
<title>llmest calculators: busy · 计算器繁忙</title>
<style>body {{ font-family: sans-serif; max-width: 40em; margin: 3em auto; padding: 0 1em; line-height: 1.5; }}</style>
</head>
<body class="llmest-busy">
<h1>The calculators are busy</h1>
<p>Every one of the {cap} calculator pages this server runs at once is open. Please try again in a few minutes;
this page reloads itself every {retry} seconds.</p>
<h1 lang="zh">计算器繁忙</h1>
<p lang="zh">本服务器可同时打开的 {cap} 个计算器页面都在使用中。请几分钟后再试；本页每 {retry} 秒自动刷新一次。</p>
</body>
</html>
"""


class CappedKernelManager(AsyncMappingKernelManager):
    """Jupyter server's kernel manager with a maximum number of kernels. A kernel asked for beyond it is refused
    with HTTP 503; kernels still starting count, so pages loaded at the same moment cannot pass the cap together."""

    max_kernels = Int(40, config=True, help="The most kernels (open calculator pages) at once; 0 refuses every one.")
    cull_unconnected_timeout = Int(
        120, config=True,
        help="End a kernel that no page is connected to after this many seconds without activity (a page load "
             "that never opened its widgets, or a page that went away); 0 leaves them to cull_idle_timeout.")

    kernel_arguments = List(
        Unicode(), ["--InteractiveShell.xmode=Minimal"], config=True,
        help="Added to every kernel's command line. xmode=Minimal: an error in a widget's handler (a malformed "
             "message from a page, say) reaches the page as one line, type and message, with no traceback and no "
             "server paths.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._starting: set[str] = set()

    def kernel_count(self) -> int:
        """The kernels running and starting."""
        return len(set(self.list_kernel_ids()) | self._starting)

    def full(self) -> bool:
        return self.kernel_count() >= self.max_kernels

    async def start_kernel(self, *, kernel_id=None, path=None, **kwargs):
        if kernel_id is not None and kernel_id in self:
            return await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)
        if self.full():
            self.log.warning("Refused a kernel: %d of max_kernels=%d running", self.kernel_count(), self.max_kernels)
            raise web.HTTPError(503, "max_kernels=%d reached", self.max_kernels, reason=BUSY_REASON)
        kernel_id = kernel_id or str(uuid.uuid4())
        kwargs["extra_arguments"] = [*kwargs.get("extra_arguments", []), *self.kernel_arguments]
        self._starting.add(kernel_id)
        try:
            return await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)
        finally:
            self._starting.discard(kernel_id)

    async def cull_kernel_if_idle(self, kernel_id):
        kernel = self._kernels.get(kernel_id)
        timeout = self.cull_unconnected_timeout
        if (kernel is not None and timeout > 0 and not self._kernel_connections.get(kernel_id, 0)
                and getattr(kernel, "execution_state", None) != "busy" and hasattr(kernel, "last_activity")):
            idle = (utcnow() - kernel.last_activity).total_seconds()
            if idle > timeout:
                self.log.warning("Culling kernel %s: no page connected for %d seconds", kernel_id, idle)
                await self.shutdown_kernel(kernel_id)
                return
        await super().cull_kernel_if_idle(kernel_id)


def busy_page(handler, notebook, cwd):
    """Voila's prelaunch hook: past the cap, answer 503 with a page in English and Chinese instead of starting a
    kernel (the kernel manager refuses it anyway; this gives the visitor a readable page)."""
    manager = handler.kernel_manager
    if isinstance(manager, CappedKernelManager) and manager.full():
        manager.log.warning("Busy page sent: %d of max_kernels=%d running", manager.kernel_count(),
                            manager.max_kernels)
        handler.set_status(503)
        handler.set_header("Retry-After", str(RETRY_AFTER_S))
        handler.set_header("Content-Type", "text/html; charset=UTF-8")
        raise web.Finish(BUSY_PAGE.format(cap=manager.max_kernels, retry=RETRY_AFTER_S))
    return None
