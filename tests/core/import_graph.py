"""The import graph's questions, asked by the seams tests (test_module_seams, test_agent_seams, test_cli_seams): a
graph is {module: set of modules it imports}. Python 2.7 and 3."""


def reaches(graph, start, goal):
    """True when an import path leads from start to goal."""
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def cycles(graph):
    """The modules that import themselves back, directly or through others, sorted."""
    return sorted(m for m in graph if reaches(graph, m, m))


def circles(edges):
    """The strongly connected components of more than one module (Tarjan, iterative), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)
