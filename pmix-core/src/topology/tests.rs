use super::*;

#[test]
fn objects_read_at_the_abi_offsets() {
    let t = Topology::discover().unwrap();
    let d = t.type_depth(sys::OBJ_PU);
    assert!(d > 0 && pu_count(&t) >= 1);
    for w in 0..t.width(d) {
        let o = t.obj(d, w).unwrap();
        assert_eq!(o.kind(), sys::OBJ_PU);
        assert_eq!(o.depth(), d);
        assert_eq!(o.logical_index(), w);
        assert_eq!(o.weight(), 1);
        assert_eq!(o.osdev_type(), -1);
        let root = t.obj(0, 0).unwrap();
        assert_eq!(root.kind(), sys::OBJ_MACHINE);
        assert!(root.parent().is_none() && o.parent().is_some());
        assert_eq!(root.weight() as u32, t.width(d));
    }
}

#[test]
fn binding_is_the_affinity_mask() {
    let t = shared(None).unwrap();
    let n = std::thread::available_parallelism().unwrap().get();
    assert_eq!(t.cpubind(false).unwrap().weight() as usize, n);
    assert_eq!(t.cpubind(true).unwrap().weight() as usize, n);
    assert!(is_shared(t.ptr()));
    assert!(core::ptr::eq(shared(None).unwrap(), t), "loaded once");
}

#[test]
fn locality_of_the_allowed_set_names_every_pu() {
    let t = shared(None).unwrap();
    let all = t.allowed_cpuset().unwrap();
    let loc = locality_string(t, &all).unwrap();
    let ht = loc.split(':').find(|p| p.starts_with("HT")).unwrap();
    assert_eq!(
        ht,
        format!("HT{}", list_string(&(0..pu_count(t)).collect::<Vec<_>>()))
    );
    let share = relative_locality(&loc, &format!("hwloc:{loc}")).unwrap();
    assert_ne!(share & psys::PMIX_LOCALITY_SHARE_HWTHREAD, 0);
    assert_eq!(
        locality_string(t, &Bitmap::parse_list("0-").unwrap()),
        None,
        "unbound"
    );
}

#[test]
fn relative_locality_of_strings() {
    let node = psys::PMIX_LOCALITY_SHARE_NODE;
    let sk = psys::PMIX_LOCALITY_SHARE_PACKAGE;
    let l2 = psys::PMIX_LOCALITY_SHARE_L2CACHE;
    assert_eq!(
        relative_locality("SK0:L20:CR0:HT0", "SK0:L20-1:CR1:HT1").unwrap(),
        node | sk | l2
    );
    assert_eq!(relative_locality("SK0:HT0", "SK1:HT1").unwrap(), node);
    let e = relative_locality("cuda:0", "SK0").unwrap_err();
    assert_eq!(e.status(), psys::PMIX_ERR_NOT_SUPPORTED);
    assert_eq!(
        relative_locality("SKx", "SK0").unwrap_err().status(),
        psys::PMIX_ERR_BAD_PARAM
    );
}

#[test]
fn cpuset_strings() {
    let b = parse_cpuset_string("hwloc:0-1,3").unwrap();
    assert_eq!(b.to_list(), "0-1,3");
    assert_eq!(cpuset_string(&b), "hwloc:0-1,3");
    assert_eq!(b.weight(), 3);
    let st = |s: &str| parse_cpuset_string(s).unwrap_err().status();
    assert_eq!(st("other:0"), psys::PMIX_ERR_NOT_SUPPORTED);
    assert_eq!(st("0-1"), psys::PMIX_ERR_BAD_PARAM);
    assert_eq!(st("hwloc:zz"), psys::PMIX_ERR_BAD_PARAM);
    assert_eq!(list_string(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
    assert_eq!(list_string(&[]), "");
}

#[test]
fn xml_round_trip_and_bad_xml() {
    let t = Topology::discover().unwrap();
    let xml = t.export_xml().unwrap();
    let u = Topology::from_xml(&xml).unwrap();
    assert_eq!(pu_count(&u), pu_count(&t));
    let e = Topology::from_xml("<not a topology").err().unwrap();
    assert_eq!(e.status(), psys::PMIX_ERR_BAD_PARAM);
}

#[test]
fn distances_of_the_devices_hwloc_knows() {
    let t = shared(None).unwrap();
    let all = t.allowed_cpuset().unwrap();
    let every = u64::MAX;
    let d = distances(t, &all, every, &[], "host").unwrap();
    for x in &d {
        assert_ne!(x.devtype, 0);
        assert!(x.mindist <= x.maxdist, "{x:?}");
        let only = distances(t, &all, every, core::slice::from_ref(&x.osname), "host").unwrap();
        assert!(only.iter().all(|y| y.osname == x.osname) && !only.is_empty());
    }
    assert!(distances(t, &all, 0, &[], "host").unwrap().is_empty());
}

#[test]
fn render_names_the_machine_and_every_pu() {
    let t = shared(None).unwrap();
    let r = render(t);
    assert!(
        r.starts_with("Type: Machine Number of child objects: "),
        "{r}"
    );
    assert_eq!(r.matches("Type: PU ").count() as u32, pu_count(t), "{r}");
    assert!(r.contains("Cpuset:  0x"), "{r}");
}
