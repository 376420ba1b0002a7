"""Test double of Ambari's stacks/service_advisor.py (the ServiceAdvisor base class).

Mirrors release-2.7.8 / trunk semantics of what the MirrorMaker 2 advisor relies on; like the real
file it imports DefaultStackAdvisor from the already loaded 'stack_advisor' module.
"""
from stack_advisor import DefaultStackAdvisor


class ServiceAdvisor(DefaultStackAdvisor):

    def colocateService(self, hostsComponentsMap, serviceComponents):
        pass

    def getServiceConfigurationRecommendations(self, configurations, clusterSummary, services, hosts):
        pass

    def getServiceConfigurationRecommendationsForKerberos(self, configurations, clusterSummary, services, hosts):
        return self.getServiceConfigurationRecommendations(configurations, clusterSummary, services, hosts)

    def getServiceComponentLayoutValidations(self, services, hosts):
        return []

    def getServiceConfigurationsValidationItems(self, configurations, recommendedDefaults, services, hosts):
        return []

    def getServiceComponentCardinalityValidations(self, services, hosts, service_name):
        active = set(self.getActiveHosts([h["Hosts"] for h in hosts["items"]]))
        target = None
        for service in services["services"]:
            if service["StackServices"]["service_name"] == service_name:
                target = service
        if not target:
            return []
        items = []
        for component in target["components"]:
            info = component["StackServiceComponents"]
            if info["cardinality"] is None:
                continue
            placed = [h for h in (info["hostnames"] or []) if h in active]
            count, cardinality, display = len(placed), str(info["cardinality"]), info["display_name"]
            message = None
            if "+" in cardinality:
                if count < int(cardinality[:-1]):
                    message = "at least {0} {1} components should be installed in cluster.".format(
                        int(cardinality[:-1]), display)
            elif "-" in cardinality:
                low, high = [int(n) for n in cardinality.split("-")]
                if count < low or count > high:
                    message = "between {0} and {1} {2} components should be installed in cluster.".format(
                        low, high, display)
            elif cardinality == "ALL":
                if count != len(active):
                    message = "{0} component should be installed on all hosts in cluster.".format(display)
            elif count != int(cardinality):
                message = "exactly {0} {1} components should be installed in cluster.".format(
                    int(cardinality), display)
            if message is not None:
                items.append({"type": "host-component", "level": "ERROR", "component-name": info["component_name"],
                              "message": "You have selected {0} {1} components. Please consider that {2}".format(
                                  count, display, message)})
        return items
