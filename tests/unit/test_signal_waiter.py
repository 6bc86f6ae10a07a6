"""The daemon's wait for SIGTERM/SIGINT (cli/daemon.py: SignalWaiter)."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from minikube_py.cli.daemon import SignalWaiter


@pytest.mark.timeout(20)
@pytest.mark.parametrize("to_main_thread", [True, False])
def test_the_signal_wakes_the_main_thread_whichever_thread_takes_it(to_main_thread: bool):
    parked = threading.Event()
    bystander = threading.Thread(target=parked.wait, args=(30,), daemon=True)
    bystander.start()
    target = threading.main_thread().ident if to_main_thread else bystander.ident
    assert target is not None
    before = signal.getsignal(signal.SIGUSR1)
    try:
        with SignalWaiter((signal.SIGUSR1,)) as waiter:
            # Sent once the main thread is blocked in wait(): the kernel hands a
            # process signal to any thread; pthread_kill picks one for the test.
            threading.Timer(0.3, signal.pthread_kill, (target, signal.SIGUSR1)).start()
            started = time.monotonic()
            assert waiter.wait() == signal.SIGUSR1
            assert time.monotonic() - started < 15
    finally:
        parked.set()
    assert signal.getsignal(signal.SIGUSR1) == before  # the handler is restored


@pytest.mark.timeout(20)
def test_other_signals_do_not_end_the_wait():
    with SignalWaiter((signal.SIGUSR1,)) as waiter:
        signal.signal(signal.SIGUSR2, lambda *_: None)  # writes its own wakeup byte
        try:
            main = threading.main_thread().ident
            assert main is not None
            threading.Timer(0.2, signal.pthread_kill, (main, signal.SIGUSR2)).start()
            threading.Timer(0.6, signal.pthread_kill, (main, signal.SIGUSR1)).start()
            assert waiter.wait() == signal.SIGUSR1
        finally:
            signal.signal(signal.SIGUSR2, signal.SIG_DFL)
