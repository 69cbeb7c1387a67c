"""AWS service implementations; make_services() builds one of each for a World."""


def make_services(world):
    from .sts import StsService
    from .iam import IamService
    from .ec2 import Ec2Service
    from .eks import EksService
    from .sagemaker import SageMakerService
    from .s3 import S3Service
    from .fsx import FsxService
    from .quotas import QuotasService
    from .pricing import PricingService
    from .sns import SnsService
    from .events import EventsService
    services = {}
    for cls in (StsService, IamService, Ec2Service, EksService, SageMakerService, S3Service,
                FsxService, QuotasService, PricingService, SnsService, EventsService):
        svc = cls(world)
        services[svc.name] = svc
    return services
