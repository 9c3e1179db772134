print("automerge")
